#pragma once
// This process's address space as /proc/self/maps shows it, and placeholders that make the kernel's
// top-down allocator pick a chosen range: ld.so maps a library with one mmap(NULL, span), which
// lands at the top of the highest free gap that fits (measured in docs/platform.md §5). Filling
// every free gap above an address with PROT_NONE placeholders makes the highest free gap the one
// just below it. Used to load libraries into their reserved region (library_region.cpp) and back
// at their recorded address (library_placement.cpp).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "exe_layout.hpp"

namespace yadokari::memory {

// The process's mappings, sorted, named (the file, "[...]", or "" for anonymous memory); `stack_lo`
// the main stack's start. Allocates: call inside a library scope.
bool read_maps(std::vector<NamedRange>& out, std::uintptr_t& stack_lo);

// The top of the area mmap hands out: the end of the highest mapping below the main stack (ld.so's,
// with randomisation off). Nothing above it is filled: that is the stack's room to grow.
std::uintptr_t mmap_ceiling(const std::vector<NamedRange>& maps, std::uintptr_t stack_lo);

// PROT_NONE, MAP_NORESERVE, MAP_FIXED_NOREPLACE placeholders over the free gaps of [from, ceiling),
// from the maps as they are now. Released by release(), explicitly: no destructor, so a global one
// registers no exit handler. The table needs no allocation: it may be held while other code runs
// in application context. Call inside a library scope (the maps are read with allocations).
class GapPlaceholders {
 public:
  GapPlaceholders() = default;
  GapPlaceholders(const GapPlaceholders&) = delete;
  GapPlaceholders& operator=(const GapPlaceholders&) = delete;

  // False if some gap could not be held (more gaps than the table holds, the maps unreadable).
  bool hold_above(std::uintptr_t from);
  void release();

 private:
  bool hold_pass(std::uintptr_t from, bool& raced);
  static constexpr int kMaxHeld = 1024;
  Range held_[kMaxHeld];
  int count_ = 0;
};

}  // namespace yadokari::memory
