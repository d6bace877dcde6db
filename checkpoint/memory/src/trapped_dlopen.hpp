#pragma once
// Loads a library exactly into a range the caller holds, whatever other threads map or unmap
// meanwhile (checkpoint/memory/README.md, "Libraries loaded after start", Restore).
//
// ld.so maps a library with one mmap(NULL, length, PROT_READ, MAP_PRIVATE | MAP_DENYWRITE, fd, 0),
// an inline system call no interposer sees. Steering that call through the kernel's top-down
// choice (address_gaps.hpp) leaves a moment, between the last check and ld.so's mmap, in which
// another thread's munmap can open a higher gap that takes the library. Here the range stays
// mapped (the caller's placeholder) and the call itself is answered: the dlopen runs on a
// short-lived helper thread with a seccomp filter that traps exactly such calls
// (SECCOMP_RET_TRAP), and the SIGSYS handler maps the file with MAP_FIXED over the placeholder and
// returns that address as the call's result. A filter cannot be removed again, but it belongs to
// the thread that installed it (and threads that thread creates): it ends with the helper.
#include <cstddef>
#include <cstdint>

namespace yadokari::memory {

using DlopenFunction = void* (*)(const char* path, int mode);

struct TrappedDlopen {
  enum class Outcome {
    unavailable,  // the filter or the helper thread could not be set up: nothing was done
    loaded,       // the dlopen returned `handle`
    failed,       // the dlopen returned nullptr: `error` says why
  };
  Outcome outcome = Outcome::unavailable;
  void* handle = nullptr;
  // Whether ld.so's mapping of the library was answered at the range: then the placeholder was
  // replaced by the library (or, if the dlopen failed later, unmapped by ld.so); otherwise the
  // placeholder is still there.
  bool placed = false;
  char error[512] = "";
};

// open(path, mode) on a helper thread whose first mmap of the shape above, with a length in
// (span - 4096, span], is mapped at `lo` with MAP_FIXED. [lo, lo + span) must be a mapping the
// caller owns (a PROT_NONE placeholder). Single-threaded use only (one placement at a time).
TrappedDlopen dlopen_at_held_range(DlopenFunction open, const char* path, int mode, std::uintptr_t lo,
                                   std::size_t span);

// The application's own dlopen (library_region.cpp): open(path, mode) on a helper thread that runs
// as the application thread would (its allocations go to the arena), whose every mmap of the shape
// above (any length: the library and each dependency it brings) is mapped with MAP_FIXED right
// below `floor`, top down, inside [region_lo, floor), which must be the caller's PROT_NONE
// reservation; `floor` comes back moved below the lowest. `placed` says whether any was. The
// libraries' constructors run on the helper thread. Single-threaded use only.
TrappedDlopen dlopen_into_region(DlopenFunction open, const char* path, int mode, std::uintptr_t region_lo,
                                 std::uintptr_t& floor);

}  // namespace yadokari::memory
