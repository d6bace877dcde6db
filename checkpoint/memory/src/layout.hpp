#pragma once
// Fixed addresses of the regions the memory layer owns. They must be the same in every
// incarnation, so they are constants, chosen far from everything Linux places with ASLR off on
// x86-64 (a PIE at 0x5555_5555_4000 with its brk heap above it, libraries and mmap() below
// 0x7fff_f7ff_f000, the initial stack below 0x7fff_ffff_f000): mmap() would need ~80 TiB of
// other mappings before it reached 0x1000_0000_0000.
#include <cstddef>
#include <cstdint>

namespace yadokari::memory {

inline constexpr std::size_t kPage = 4096;
inline constexpr std::size_t kMiB = std::size_t{1} << 20;
inline constexpr std::size_t kGiB = std::size_t{1} << 30;

// argv/envp copy (strings + pointer arrays); mapped with the size the process needs.
inline constexpr std::uintptr_t kArgsBase = 0x100000000000;
inline constexpr std::size_t kArgsMax = 64 * kMiB;

// Application stack: grows down from kStackTop; at most kStackWindow below it.
inline constexpr std::uintptr_t kStackTop = 0x101000000000;
inline constexpr std::size_t kStackWindow = 4 * kGiB;

// Application arena: reserved PROT_NONE, committed upwards as it grows.
inline constexpr std::uintptr_t kArenaBase = 0x110000000000;
inline constexpr std::size_t kArenaReserve = 256 * kGiB;

// The application's own mappings (mmap/mremap in application context): reserved PROT_NONE at
// load time, each mapping placed inside with MAP_FIXED (src/app_mappings.hpp). 1 TiB above the
// arena's end, so that an arena grown to its full reservation never meets it.
inline constexpr std::uintptr_t kMapBase = 0x120000000000;
inline constexpr std::size_t kMapReserve = 1024 * kGiB;

// Libraries the application dlopens after start (src/library_region.hpp): reserved PROT_NONE at
// load time; ld.so is steered into it at the application's dlopen, so that a restarted process
// finds the same addresses free whatever the fresh MPI library mapped. Filled from the top down.
inline constexpr std::uintptr_t kLibBase = 0x140000000000;
inline constexpr std::size_t kLibReserve = 1024 * kGiB;
// One page of code (not part of any object) from which the steered dlopen is called: glibc then
// treats the call as the executable's (src/library_region.cpp). Below the library region.
inline constexpr std::uintptr_t kDlopenTrampoline = 0x13fffff00000;

inline bool in_lib_region(std::uintptr_t lo, std::uintptr_t hi) {
  return lo >= kLibBase && hi <= kLibBase + kLibReserve && lo < hi;
}

inline bool in_map_region(std::uintptr_t lo, std::uintptr_t hi) {
  return lo >= kMapBase && hi <= kMapBase + kMapReserve;
}

inline bool in_arena(const void* p) {
  auto a = reinterpret_cast<std::uintptr_t>(p);
  return a - kArenaBase < kArenaReserve;  // one comparison: unsigned wrap-around below the base
}

}  // namespace yadokari::memory
