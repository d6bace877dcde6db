#pragma once
// Ranges of the shim's own static memory carried across a restart (yk_mem_carry()).
#include <cstdint>

namespace yadokari::memory {

struct CarriedRange {
  std::uint64_t addr;
  std::uint64_t len;
  char name[32];
};

inline constexpr int kMaxCarried = 32;

int carried_count();
const CarriedRange* carried_ranges();

}  // namespace yadokari::memory
