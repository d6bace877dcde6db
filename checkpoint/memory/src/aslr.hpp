#pragma once
namespace yadokari::memory {
// Makes sure this process runs without address-space randomisation
// (docs/architecture.md, pitfall 1): if it does not, re-executes /proc/self/exe with the same
// argv and environment under personality(ADDR_NO_RANDOMIZE) (does not return then).
// YADOKARI_ASLR_REEXEC guards against a loop. Returns false (after one line on stderr) if
// randomisation cannot be turned off.
bool ensure_no_aslr(char** argv);
}  // namespace yadokari::memory
