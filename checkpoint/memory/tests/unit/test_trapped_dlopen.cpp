// A library loaded into a range held by a placeholder, through the seccomp trap on ld.so's mmap
// (trapped_dlopen.hpp): it lands there although higher free gaps would take it otherwise.
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "checkpoint/memory/src/trapped_dlopen.hpp"

using namespace yadokari::memory;

namespace {

constexpr std::uintptr_t kPage = 4096;

// The pages the library's PT_LOAD segments occupy, from a load of it anywhere.
std::size_t library_span(const char* path) {
  void* h = dlopen(path, RTLD_NOW);
  if (!h) return 0;
  link_map* map = nullptr;
  dlinfo(h, RTLD_DI_LINKMAP, &map);
  struct Find {
    std::uintptr_t base, lo = UINTPTR_MAX, hi = 0;
  } find{map->l_addr};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* c) {
        auto* f = static_cast<Find*>(c);
        if (info->dlpi_addr != f->base) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& p = info->dlpi_phdr[i];
          if (p.p_type != PT_LOAD) continue;
          f->lo = std::min<std::uintptr_t>(f->lo, info->dlpi_addr + p.p_vaddr);
          f->hi = std::max<std::uintptr_t>(f->hi, info->dlpi_addr + p.p_vaddr + p.p_memsz);
        }
        return 1;
      },
      &find);
  dlclose(h);
  return ((find.hi + kPage - 1) & ~(kPage - 1)) - (find.lo & ~(kPage - 1));
}

// A PROT_NONE reservation of `len` bytes whose top 64 pages are given back: free room above the
// region's floor `top`, where ld.so's mmap(NULL) would land without the trap.
struct RegionWithRoomAbove {
  explicit RegionWithRoomAbove(std::size_t len) : len(len) {
    void* r = ::mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) return;
    base = reinterpret_cast<std::uintptr_t>(r);
    top = base + len - 64 * kPage;
    if (::munmap(reinterpret_cast<void*>(top), 64 * kPage) != 0) top = 0;
  }
  ~RegionWithRoomAbove() {
    if (base) ::munmap(reinterpret_cast<void*>(base), len);
  }
  std::size_t len;
  std::uintptr_t base = 0, top = 0;
};

// The placed library's function, called through the handle.
int call_placed_next(void* handle) {
  auto* next = reinterpret_cast<int (*)()>(dlsym(handle, "yk_placed_next"));
  return next ? next() : -1;
}

int seccomp_mode_of_this_thread() {
  std::ifstream status("/proc/thread-self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Seccomp:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

}  // namespace

TEST_CASE("trapped dlopen: ld.so's mapping is answered at the held range", "[trap]") {
  const std::size_t span = library_span(YK_PLACED_LIB);
  REQUIRE(span >= kPage);
  // A placeholder with free room above it (64 pages freed at the top of a reservation): without
  // the trap ld.so's mmap(NULL) would land in that room or higher, never at `lo`.
  const std::size_t around = span + 128 * kPage;
  void* r = ::mmap(nullptr, around, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE(r != MAP_FAILED);
  const auto base = reinterpret_cast<std::uintptr_t>(r);
  const std::uintptr_t lo = base + 16 * kPage;
  REQUIRE(::munmap(reinterpret_cast<void*>(lo + span), 64 * kPage) == 0);

  const TrappedDlopen got = dlopen_at_held_range(::dlopen, YK_PLACED_LIB, RTLD_NOW, lo, span);
  REQUIRE(got.outcome == TrappedDlopen::Outcome::loaded);
  CHECK(got.placed);
  link_map* map = nullptr;
  REQUIRE(dlinfo(got.handle, RTLD_DI_LINKMAP, &map) == 0);
  CHECK(map->l_addr == lo);
  auto* next = reinterpret_cast<int (*)()>(dlsym(got.handle, "yk_placed_next"));
  REQUIRE(next);
  CHECK(reinterpret_cast<std::uintptr_t>(next) >= lo);
  CHECK(reinterpret_cast<std::uintptr_t>(next) < lo + span);
  CHECK(next() == 42);
  // The filter was the helper thread's: this thread has none.
  CHECK(seccomp_mode_of_this_thread() == 0);
  // Other mappings of any shape still work here.
  void* p = ::mmap(nullptr, span, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(p != MAP_FAILED);
  if (p != MAP_FAILED) ::munmap(p, span);

  dlclose(got.handle);
  ::munmap(r, around);
}

TEST_CASE("trapped dlopen: a library that cannot be loaded fails with dlerror's text", "[trap]") {
  void* r = ::mmap(nullptr, 4 * kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE(r != MAP_FAILED);
  const TrappedDlopen got = dlopen_at_held_range(::dlopen, "/nonexistent/libnothing.so", RTLD_NOW,
                                                 reinterpret_cast<std::uintptr_t>(r), 4 * kPage);
  CHECK(got.outcome == TrappedDlopen::Outcome::failed);
  CHECK_FALSE(got.placed);
  CHECK(std::strstr(got.error, "libnothing.so") != nullptr);
  ::munmap(r, 4 * kPage);
}

TEST_CASE("dlopen into the region: the library goes right below the floor, the floor moves down", "[trap]") {
  const std::size_t span = library_span(YK_PLACED_LIB);
  REQUIRE(span >= kPage);
  const RegionWithRoomAbove region(span + 256 * kPage);
  REQUIRE(region.top);
  std::uintptr_t floor = region.top;

  const TrappedDlopen got = dlopen_into_region(::dlopen, YK_PLACED_LIB, RTLD_NOW, region.base, floor);
  REQUIRE(got.outcome == TrappedDlopen::Outcome::loaded);
  CHECK(got.placed);
  link_map* map = nullptr;
  REQUIRE(dlinfo(got.handle, RTLD_DI_LINKMAP, &map) == 0);
  // The library's first page is its load address here (its first PT_LOAD has vaddr 0).
  CHECK(map->l_addr == region.top - span);
  CHECK(floor == region.top - span);
  CHECK(call_placed_next(got.handle) == 42);
  CHECK(seccomp_mode_of_this_thread() == 0);
  dlclose(got.handle);
}

TEST_CASE("dlopen into the region: no room below the floor fails and leaves the floor", "[trap]") {
  void* r = ::mmap(nullptr, 4 * kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE(r != MAP_FAILED);
  const auto base = reinterpret_cast<std::uintptr_t>(r);
  std::uintptr_t floor = base + kPage;  // one page: smaller than any library
  const TrappedDlopen got = dlopen_into_region(::dlopen, YK_PLACED_LIB, RTLD_NOW, base, floor);
  CHECK(got.outcome == TrappedDlopen::Outcome::failed);
  CHECK_FALSE(got.placed);
  CHECK(floor == base + kPage);
  ::munmap(r, 4 * kPage);
}

TEST_CASE("dlopen into the region: a library aligned above a page goes there too", "[trap]") {
  // ld.so first reserves span + alignment with an anonymous PROT_NONE mapping (glibc's
  // _dl_map_segment), then maps the file aligned inside it: the reservation is what is answered.
  constexpr std::uintptr_t kAlign = 0x10000;
  const RegionWithRoomAbove region(1024 * kPage);
  REQUIRE(region.top);
  std::uintptr_t floor = region.top;

  const TrappedDlopen got = dlopen_into_region(::dlopen, YK_ALIGNED_LIB, RTLD_NOW, region.base, floor);
  REQUIRE(got.outcome == TrappedDlopen::Outcome::loaded);
  CHECK(got.placed);
  link_map* map = nullptr;
  REQUIRE(dlinfo(got.handle, RTLD_DI_LINKMAP, &map) == 0);
  CHECK(map->l_addr >= region.base);
  CHECK(map->l_addr < region.top);
  CHECK(map->l_addr % kAlign == 0);
  CHECK(floor < region.top);
  CHECK(call_placed_next(got.handle) == 42);
  dlclose(got.handle);
}
