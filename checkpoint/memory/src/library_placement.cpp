#include "checkpoint/memory/src/library_placement.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>

#include <cstdio>

#include "checkpoint/memory/src/address_gaps.hpp"
#include "checkpoint/memory/src/library_region.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"
#include "checkpoint/memory/src/mapping_live.hpp"
#include "checkpoint/memory/src/trapped_dlopen.hpp"

namespace yadokari::memory {
namespace {

unsigned long long ull(std::uintptr_t v) { return static_cast<unsigned long long>(v); }

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

bool range_free(std::uintptr_t lo, std::uintptr_t hi) {
  bool free = true;
  const bool read = for_each_mapping([&](const MapLine& m) {
    if (m.lo < hi && m.hi > lo) free = false;
    return free && m.lo < hi;
  });
  return read && free;
}

// [lo, hi) held by a placeholder and ld.so's mapping of the library answered there by the seccomp
// trap (trapped_dlopen.hpp): no moment in which another thread's mmap or munmap can take the
// library elsewhere. False if the trap is unavailable or the range could not be held (nothing
// loaded then, the range free again): the caller steers instead.
bool load_trapped(const char* path, int mode, std::uintptr_t lo, std::uintptr_t hi, void*& handle, char* why,
                  std::size_t why_len) {
  void* at = reinterpret_cast<void*>(lo);
  void* placeholder =
      map_real().mmap(at, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (placeholder == MAP_FAILED) return false;
  if (placeholder != at) {  // a kernel without MAP_FIXED_NOREPLACE
    map_real().munmap(placeholder, hi - lo);
    return false;
  }
  const TrappedDlopen got = dlopen_at_held_range(real_dlopen, path, mode, lo, hi - lo);
  if (!got.placed) map_real().munmap(at, hi - lo);  // still our placeholder: nothing replaced it
  if (got.outcome == TrappedDlopen::Outcome::unavailable) return false;
  handle = got.handle;
  if (!handle) std::snprintf(why, why_len, "library %s cannot be loaded again: %s", path, got.error);
  return true;
}

// [lo, hi) free (given back by the library region if it is in it), the gaps around it held, then
// dlopen: ld.so's mmap(NULL, span) lands at lo. If it does not after all, place_library refuses.
//
// A library of 2 MiB or more is mapped differently by this kernel (THP alignment): it searches a
// gap of span + 2 MiB and takes its top 2 MiB-aligned address below, falling back to the plain
// search only if there is no such gap anywhere. In the first run it got a 2 MiB-aligned lo that
// way. So if [lo - 2 MiB, lo) is free too, the gaps above are held and that search gives lo again;
// otherwise every other gap is held (for the moment of the dlopen, another thread's mmap fails).
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
  const int load_mode = (mode & (RTLD_LAZY | RTLD_NOW)) ? mode : mode | RTLD_LAZY;
  if (void* handle = nullptr; load_trapped(path, load_mode, lo, hi, handle, why, why_len)) return handle;
  const bool large = hi - lo >= kHugePage;
  bool below_released = false, room_below = false;
  if (large && lo % kHugePage == 0 && lo >= kHugePage) {
    below_released = release_for_library(lo - kHugePage, lo);
    room_below = range_free(lo - kHugePage, lo);
  }
  static GapPlaceholders placeholders;  // 32 KiB: not on the stack; the restore runs on one thread
  // Other threads map and unmap meanwhile (UCX's, under MPICH: its peers' shared-memory segments sit
  // at the top of the mmap area), and a gap that opens takes the library. So the gaps are held until
  // a probe of the library's span lands at lo, and ld.so maps right after. Until ld.so's mapping,
  // [lo, hi) is the highest free gap: another thread's small mmap(NULL) would land in it, so decoys
  // one page smaller than the span are left free above it to take such a mapping instead.
  placeholders.leave_decoys(hi, hi - lo - 4096);
  for (int attempt = 0; attempt < 8; ++attempt) {
    const bool held = !large || room_below ? placeholders.hold_above(hi) : placeholders.hold_all_but(lo, hi);
    if (held && placeholders.top_gap_is(lo, hi - lo)) break;
  }
  void* handle = real_dlopen(path, load_mode);
  placeholders.release();
  if (below_released) reserve_again(lo - kHugePage, lo);
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
    const std::uintptr_t got = map ? map->l_addr : 0;
    dlclose(handle);
    // What took the range says which mapping raced ld.so's (another thread's, an opened gap above).
    Range taken{};
    char name[256] = "anonymous memory";  // the line's name lives in the reader's buffer: copied
    for_each_mapping([&](const MapLine& m) {
      if (m.lo < hi && m.hi > lo) {
        taken = Range{m.lo, m.hi};
        if (m.name_len) std::snprintf(name, sizeof name, "%.*s", static_cast<int>(m.name_len), m.name);
      }
      return taken.hi == 0 && m.lo < hi;
    });
    if (taken.hi != 0)
      std::snprintf(why, why_len,
                    "library %s could not be placed back at %#llx (it was loaded at %#llx; the range holds %#llx-%#llx "
                    "%s)",
                    path, ull(base), ull(got), ull(taken.lo), ull(taken.hi), name);
    else
      std::snprintf(why, why_len, "library %s could not be placed back at %#llx (it was loaded at %#llx)", path,
                    ull(base), ull(got));
    handle = nullptr;
    if (released) reserve_again(lo, hi);
    return false;
  }
  return true;
}

}  // namespace yadokari::memory
