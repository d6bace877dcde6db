#include "library_placement.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <vector>

#include "address_gaps.hpp"
#include "library_region.hpp"
#include "loaded_libraries.hpp"

namespace yadokari::memory {
namespace {

unsigned long long ull(std::uintptr_t v) { return static_cast<unsigned long long>(v); }

// [lo, hi) free (given back by the library region if it is in it), every free gap above it held,
// then dlopen: ld.so's mmap(NULL, span) lands at the top of the highest free gap, i.e. at lo.
void* load_into(const char* path, int mode, std::uintptr_t lo, std::uintptr_t hi, std::uintptr_t base, char* why,
                std::size_t why_len) {
  std::vector<NamedRange> maps;
  std::uintptr_t stack_lo = 0;
  if (!read_maps(maps, stack_lo)) {
    std::snprintf(why, why_len, "cannot read /proc/self/maps to place library %s", path);
    return nullptr;
  }
  for (const NamedRange& m : maps)
    if (m.lo < hi && m.hi > lo) {
      std::snprintf(
          why, why_len,
          "library %s cannot be loaded at %#llx again: the address range is in use in this process (%#llx-%#llx "
          "%s)",
          path, ull(base), ull(m.lo), ull(m.hi), m.name.empty() ? "anonymous memory" : m.name.c_str());
      return nullptr;
    }
  static GapPlaceholders placeholders;  // 16 KiB: not on the stack; the restore runs on one thread
  placeholders.hold_above(hi);
  void* handle = real_dlopen(path, (mode & (RTLD_LAZY | RTLD_NOW)) ? mode : mode | RTLD_LAZY);
  placeholders.release();
  if (!handle) {
    const char* error = dlerror();
    std::snprintf(why, why_len, "library %s cannot be loaded again: %s", path, error ? error : "dlopen failed");
  }
  return handle;
}

}  // namespace

bool place_library(const char* path, int mode, std::uintptr_t lo, std::uintptr_t hi, std::uintptr_t base, void*& handle,
                   char* why, std::size_t why_len) {
  handle = nullptr;
  const bool released = release_for_library(lo, hi);
  handle = load_into(path, mode, lo, hi, base, why, why_len);
  if (!handle) {
    if (released) reserve_again(lo, hi);
    return false;
  }
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || map->l_addr != base) {
    std::snprintf(why, why_len, "library %s could not be placed back at %#llx (it was loaded at %#llx)", path,
                  ull(base), ull(map ? map->l_addr : 0));
    dlclose(handle);
    handle = nullptr;
    if (released) reserve_again(lo, hi);
    return false;
  }
  return true;
}

}  // namespace yadokari::memory
