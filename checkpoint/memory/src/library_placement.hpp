#pragma once
// Loads a library at a recorded address in a fresh process (checkpoint/memory/README.md, "Libraries
// loaded after start"; measured in docs/platform.md). The range is held by a placeholder and ld.so's
// mapping of the library is answered there by a seccomp trap (trapped_dlopen.hpp), so no other
// thread can take it meanwhile. Where seccomp is unavailable: ld.so maps a library with one
// mmap(NULL, span), and the kernel gives that the highest free gap that fits, so every free gap
// above the wanted range is filled with PROT_NONE placeholders for the time of the dlopen
// (address_gaps.hpp) and the library lands at the top of the gap that holds the wanted range, i.e.
// there. A range in the library region (library_region.hpp) is first given back by it.
#include <cstddef>
#include <cstdint>

namespace yadokari::memory {

// dlopen(path, mode) with [lo, hi) made the highest free range; true with the handle if it
// landed with load address `base`. False with one line in `why` (nothing stays loaded then).
bool place_library(const char* path, int mode, std::uintptr_t lo, std::uintptr_t hi, std::uintptr_t base, void*& handle,
                   char* why, std::size_t why_len);

}  // namespace yadokari::memory
