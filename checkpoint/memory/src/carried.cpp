#include "checkpoint/memory/src/carried.hpp"

#include <cstdio>

#include "checkpoint/memory/memory.h"
#include "checkpoint/memory/src/diag.hpp"

namespace yadokari::memory {
namespace {
CarriedRange g_ranges[kMaxCarried];
int g_count;
}  // namespace

int carried_count() { return g_count; }
const CarriedRange* carried_ranges() { return g_ranges; }

}  // namespace yadokari::memory

extern "C" __attribute__((visibility("default"))) void yk_mem_carry(void* addr, std::size_t len, const char* name) {
  using namespace yadokari::memory;
  if (g_count == kMaxCarried) fatal("yk_mem_carry(): more than 32 ranges registered");
  CarriedRange& r = g_ranges[g_count++];
  r.addr = reinterpret_cast<std::uint64_t>(addr);
  r.len = len;
  std::snprintf(r.name, sizeof r.name, "%s", name ? name : "");
}
