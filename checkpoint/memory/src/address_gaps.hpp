#pragma once
// This process's address space as /proc/self/maps shows it, and placeholders that make the kernel's
// top-down allocator pick a chosen range: ld.so maps a library with one mmap(NULL, span), which
// lands at the top of the highest free gap that fits (measured in docs/platform.md §5). Filling
// every free gap above an address with PROT_NONE placeholders makes the highest free gap the one
// just below it. Used to load libraries into their reserved region (library_region.cpp) and back
// at their recorded address (library_placement.cpp).
//
// Nothing here allocates: a reader that allocated would change the very address space it reads. A
// buffer of /proc/self/maps' text that outgrows malloc's mmap threshold is mapped at the top of the
// mmap area and unmapped again once read, leaving there a gap the maps just read showed as taken:
// no placeholder held it, and ld.so put the library into it (MPICH's ranks have that many mappings).
#include <cstddef>
#include <cstdint>

#include "checkpoint/memory/src/exe_layout.hpp"

namespace yadokari::memory {

// One line of /proc/self/maps: the range and its name (the file, "[...]", or empty for anonymous
// memory; not terminated, cut if longer than the reader's line buffer).
struct MapLine {
  std::uintptr_t lo = 0, hi = 0;
  const char* name = nullptr;
  std::size_t name_len = 0;
};

// Calls visit for every mapping in address order, reading with read(2) into a buffer on the stack;
// visit returns false to stop early. False if the maps cannot be read.
using MapVisitor = bool (*)(const MapLine& line, void* context);
bool scan_maps(MapVisitor visit, void* context);

template <class Visit>
bool for_each_mapping(Visit&& visit) {
  return scan_maps([](const MapLine& line, void* c) { return (*static_cast<Visit*>(c))(line); }, &visit);
}

// PROT_NONE, MAP_NORESERVE, MAP_FIXED_NOREPLACE placeholders over the free gaps between `from` and
// the top of the area mmap hands out (the end of the highest mapping below the main stack; above it
// is the stack's room to grow), from the maps as they are now. Released by release(), explicitly:
// no destructor, so a global one registers no exit handler. Needs no allocation: it may be held
// while other code runs in application context.
class GapPlaceholders {
 public:
  GapPlaceholders() = default;
  GapPlaceholders(const GapPlaceholders&) = delete;
  GapPlaceholders& operator=(const GapPlaceholders&) = delete;

  // False if some gap could not be held (more gaps than the table holds, the maps unreadable).
  bool hold_above(std::uintptr_t from);
  // Every free gap but [lo, hi), below it and above the mmap area too: a file mapping of 2 MiB or more is
  // placed by the kernel (THP alignment) in a gap of its length plus 2 MiB if there is one, and at
  // a 2 MiB boundary, so an exact gap above other free ones would not get it. With no other gap it
  // falls back to the plain top-down search, which finds [lo, hi).
  bool hold_all_but(std::uintptr_t lo, std::uintptr_t hi);
  // Whether mmap(NULL, len) would land at `at` now: probed with a mapping that is removed again.
  static bool top_gap_is(std::uintptr_t at, std::size_t len);
  // For the next hold: leave free gaps ("decoys") of `size` bytes, each between placeholder pages,
  // in the held gaps above `above` and below the top of the mmap area. Another thread's mmap(NULL)
  // of up to `size` bytes then lands in a decoy, above a range of more than `size` bytes kept free
  // for a library, instead of in it; ld.so's mapping of that range does not fit a decoy.
  void leave_decoys(std::uintptr_t above, std::size_t size);
  // Releases the placeholders (never what another thread mapped into a decoy) and forgets the decoys.
  void release();

 private:
  bool hold(std::uintptr_t from, Range keep);
  bool hold_pass(std::uintptr_t from, Range keep, bool& raced);
  void hold_gap(Range gap, std::uintptr_t area_top, bool& raced);
  bool hold_one(Range piece);
  bool in_decoy(Range gap) const;
  static constexpr std::uintptr_t kLowestHeld = 0x10000;   // vm.mmap_min_addr's default (below it, mmap fails)
  static constexpr std::uintptr_t kStackGuard = 0x100000;  // the kernel's stack_guard_gap (256 pages)
  static constexpr int kMaxHeld = 1024;
  Range held_[kMaxHeld];
  Range gaps_[kMaxHeld];  // one pass's free gaps, found before any is held
  int count_ = 0;
  static constexpr int kMaxDecoys = 16;
  static constexpr std::uintptr_t kPage = 4096;
  Range decoys_[kMaxDecoys];
  int decoy_count_ = 0;
  std::uintptr_t decoys_above_ = 0;
  std::size_t decoy_size_ = 0;  // 0: no decoys
};

}  // namespace yadokari::memory
