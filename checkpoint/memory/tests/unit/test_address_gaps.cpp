// Placeholders that make the kernel's top-down mmap pick a chosen range (address_gaps.hpp), and
// the decoys that keep another thread's small mmap(NULL) out of that range meanwhile.
#include <catch2/catch.hpp>

#include <sys/mman.h>

#include <cstdint>

#include "checkpoint/memory/src/address_gaps.hpp"
#include "checkpoint/memory/src/mapping_live.hpp"

namespace yadokari::memory {
// The layer's interposers are not linked here: libc's functions are the real ones.
const MapReal& map_real() {
  static const MapReal real{::mmap, ::munmap, ::mremap, ::mprotect};
  return real;
}
}  // namespace yadokari::memory

using namespace yadokari::memory;

namespace {

constexpr std::uintptr_t kPage = 4096;
constexpr std::size_t kSpan = 5 * kPage;  // the library's span

std::uintptr_t map_anywhere(std::size_t len) {
  void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? 0 : reinterpret_cast<std::uintptr_t>(p);
}

// What the test saw while the placeholders were held (nothing is checked then: Catch2 allocates,
// and glibc's heap, unable to grow, would map into the very gaps under test).
struct Seen {
  bool held = false, top_before = false, top_after = false;
  std::uintptr_t small = 0, decoy_sized = 0;
};

// [lo, lo + kSpan) is freed inside a mapping of our own, the gaps above it held (with decoys or
// not), then "another thread" maps a page and a decoy's size.
Seen hold_and_map(std::uintptr_t lo, bool decoys) {
  static GapPlaceholders placeholders;  // 32 KiB: not on the stack
  Seen seen;
  if (decoys) placeholders.leave_decoys(lo + kSpan, kSpan - kPage);
  seen.held = placeholders.hold_above(lo + kSpan);
  seen.top_before = GapPlaceholders::top_gap_is(lo, kSpan);
  seen.small = map_anywhere(kPage);
  seen.decoy_sized = map_anywhere(kSpan - kPage);
  seen.top_after = GapPlaceholders::top_gap_is(lo, kSpan);
  placeholders.release();
  return seen;
}

}  // namespace

TEST_CASE("address gaps: the kept range is the highest free gap; decoys take smaller mappings", "[gaps]") {
  const std::size_t around = 64 * kPage;
  const std::uintptr_t base = map_anywhere(around);
  REQUIRE(base != 0);
  const std::uintptr_t lo = base + 16 * kPage;
  REQUIRE(::munmap(reinterpret_cast<void*>(lo), kSpan) == 0);

  SECTION("without decoys another thread's small mapping lands in the kept range") {
    const Seen seen = hold_and_map(lo, false);
    CHECK(seen.held);
    CHECK(seen.top_before);
    CHECK(seen.small == lo + kSpan - kPage);  // the top of the kept range
    CHECK_FALSE(seen.top_after);
    ::munmap(reinterpret_cast<void*>(seen.small), kPage);
    ::munmap(reinterpret_cast<void*>(seen.decoy_sized), kSpan - kPage);
  }
  SECTION("with decoys it lands above, and the kept range stays the highest gap of its size") {
    const Seen seen = hold_and_map(lo, true);
    CHECK(seen.held);
    CHECK(seen.top_before);
    CHECK(seen.small >= lo + kSpan);
    CHECK(seen.decoy_sized >= lo + kSpan);
    CHECK(seen.top_after);
    // release() left what was mapped into the decoys alone.
    REQUIRE(seen.small != 0);
    REQUIRE(seen.decoy_sized != 0);
    *reinterpret_cast<volatile char*>(seen.small) = 1;
    *reinterpret_cast<volatile char*>(seen.decoy_sized + kSpan - 2 * kPage) = 2;
    CHECK(*reinterpret_cast<volatile char*>(seen.small) == 1);
    ::munmap(reinterpret_cast<void*>(seen.small), kPage);
    ::munmap(reinterpret_cast<void*>(seen.decoy_sized), kSpan - kPage);
  }
  ::munmap(reinterpret_cast<void*>(base), around);
}
