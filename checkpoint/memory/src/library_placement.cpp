#include "library_placement.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>

#include "address_gaps.hpp"
#include "library_region.hpp"
#include "loaded_libraries.hpp"

namespace yadokari::memory {
namespace {

unsigned long long ull(std::uintptr_t v) { return static_cast<unsigned long long>(v); }

// [lo, hi) free (given back by the library region if it is in it), every other free gap held, then
// dlopen: ld.so's mmap(NULL, span) lands in the only free gap, at lo. If it
// does not after all, place_library refuses.
void* load_into(const char* path, int mode, std::uintptr_t lo, std::uintptr_t hi, std::uintptr_t base, char* why,
                std::size_t why_len) {
  bool taken = false;
  const bool read = for_each_mapping([&](const MapLine& m) {
    if (m.lo >= hi || m.hi <= lo) return true;
    const int name_len = static_cast<int>(m.name_len);
    std::snprintf(
        why, why_len,
        "library %s cannot be loaded at %#llx again: the address range is in use in this process (%#llx-%#llx "
        "%.*s)",
        path, ull(base), ull(m.lo), ull(m.hi), name_len ? name_len : 16, name_len ? m.name : "anonymous memory");
    taken = true;
    return false;
  });
  if (!read) {
    std::snprintf(why, why_len, "cannot read /proc/self/maps to place library %s", path);
    return nullptr;
  }
  if (taken) return nullptr;
  static GapPlaceholders placeholders;  // 32 KiB: not on the stack; the restore runs on one thread
  // Other threads map and unmap meanwhile (UCX's, under MPICH: its peers' shared-memory segments sit
  // at the top of the mmap area), and a gap that opens takes the library. So
  // the gaps are held until a probe of the library's span lands at lo, and ld.so maps right after.
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (!placeholders.hold_all_but(lo, hi)) continue;
    if (placeholders.top_gap_is(lo, hi - lo)) break;
  }
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
