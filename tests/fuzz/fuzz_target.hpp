#pragma once
// The libFuzzer entry point every target defines. Built with -fsanitize=fuzzer it is driven by
// libFuzzer; in the normal build replay_main.cpp drives it with the corpus and fixed mutations.
// A target returns 0 for input its parser accepted or refused with the module's own error class;
// any other exception escapes on purpose, so that it counts as a finding.
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
