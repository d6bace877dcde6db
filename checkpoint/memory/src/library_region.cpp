#include "checkpoint/memory/src/library_region.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>

#include <algorithm>
#include <mutex>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/src/address_gaps.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/layout.hpp"
#include "checkpoint/memory/src/mapping_live.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "checkpoint/memory/src/spin_lock.hpp"
#include "checkpoint/memory/src/trapped_dlopen.hpp"

extern "C" void* (*yk_real_dlopen)(const char*, int);  // glibc's dlopen (dlopen_tracking.cpp)

namespace yadokari::memory {
namespace {

constexpr std::uintptr_t kLibTop = kLibBase + kLibReserve;
constexpr int kMaxReleased = 64;

bool g_region;                            // reserved at load time
void* (*g_trampoline)(const char*, int);  // the code at kDlopenTrampoline, once written
SpinLock g_lock;                          // everything below
std::uintptr_t g_floor = kLibTop;         // [kLibBase, g_floor) is our PROT_NONE reservation
int g_active;                             // steered dlopens in progress (the placeholders are held)
GapPlaceholders g_placeholders;           // .bss: held across the dlopen
Range g_released[kMaxReleased];           // inside [kLibBase, g_floor): given back for the restore's libraries
int g_released_count;

void* at(std::uintptr_t a) { return reinterpret_cast<void*>(a); }

bool reserve(std::uintptr_t lo, std::uintptr_t hi) {
  void* p = map_real().mmap(at(lo), hi - lo, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == at(lo)) return true;
  if (p != MAP_FAILED) map_real().munmap(p, hi - lo);
  return false;
}

// glibc's dlopen takes its return address as the caller, to choose the namespace and the
// RUNPATH/RPATH a bare name is searched with; an address inside no object counts as the
// executable's (glibc's _dl_open: "By default we assume this is the main application"). So a
// steered call (which must come back here afterwards, unlike the tail-jumping stub) is made from
// this page, outside every object: exactly what a call from the executable would get. Only calls
// that come from the executable (or from no object) are steered, so nothing changes for them.
//   endbr64; sub $8,%rsp; movabs $&yk_real_dlopen,%rax; call *(%rax); add $8,%rsp; ret
void write_trampoline() {
  unsigned char code[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x83, 0xec, 0x08, 0x48, 0xb8, 0,    0,   0,
                          0,    0,    0,    0,    0,    0xff, 0x10, 0x48, 0x83, 0xc4, 0x08, 0xc3};
  void* const target = &yk_real_dlopen;
  std::memcpy(code + 10, &target, sizeof target);
  void* page = at(kDlopenTrampoline);
  void* p =
      map_real().mmap(page, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != page) {
    if (p != MAP_FAILED) map_real().munmap(p, kPage);
    return;
  }
  std::memcpy(page, code, sizeof code);
  if (map_real().mprotect(page, kPage, PROT_READ | PROT_EXEC) == 0)
    g_trampoline = reinterpret_cast<void* (*)(const char*, int)>(page);
}

// Load time, after startup.cpp (priority 101) decided whether the layer is on, before MPI maps anything.
__attribute__((constructor(102))) void reserve_region() {
  if (!g_enabled) return;
  g_region = reserve(kLibBase, kLibTop);
  if (g_region) write_trampoline();
  if (!g_region || !g_trampoline)
    say("cannot reserve the region for libraries loaded after start at its fixed address; ld.so places them, and a "
        "restart may find their addresses taken");
}

// Gives up the reservation: [kLibBase, g_floor) but the ranges the restore placed libraries in.
void unreserve() {
  std::sort(g_released, g_released + g_released_count, [](const Range& a, const Range& b) { return a.lo < b.lo; });
  std::uintptr_t from = kLibBase;
  for (int i = 0; i <= g_released_count; ++i) {
    const std::uintptr_t to = i < g_released_count ? g_released[i].lo : g_floor;
    if (from < to) map_real().munmap(at(from), to - from);
    if (i < g_released_count && g_released[i].hi > from) from = g_released[i].hi;
  }
  g_released_count = 0;
  g_floor = kLibBase;
}

// The first steered dlopen in progress: the reservation goes, the gaps above the region are held.
void begin() {
  LibraryScope scope;  // the maps reader opens a file: never the application's
  SpinGuard l(g_lock);
  if (g_active++ > 0) return;
  unreserve();
  g_placeholders.hold_above(kLibTop);
}

// The last one done: the placeholders go, the region below its lowest mapping is reserved again.
void end() {
  LibraryScope scope;
  SpinGuard l(g_lock);
  if (--g_active > 0) return;
  g_placeholders.release();
  std::uintptr_t lowest = kLibTop;
  const bool read = for_each_mapping([&lowest](const MapLine& m) {
    if (m.lo < kLibTop && m.hi > kLibBase && m.lo < lowest) lowest = m.lo < kLibBase ? kLibBase : m.lo;
    return m.lo < kLibTop;
  });
  if (!read) lowest = kLibBase;
  g_floor = lowest > kLibBase && reserve(kLibBase, lowest) ? lowest : kLibBase;
}

// The dlopen with ld.so's mappings answered inside the reservation (trapped_dlopen.hpp): no gap
// another thread opens meanwhile can take the library, which the steering below cannot rule out
// (UCX's thread unmaps its peers' segments at any moment). False when the trap is unavailable or
// the dlopen failed: then the steering runs it (again) on this thread, which also leaves dlerror()
// to this thread as the caller expects (a failed dlopen runs no constructor).
std::mutex g_trapped;  // one such dlopen at a time (the window is global); a dlopen may be long

bool dlopen_trapped_into_region(const char* name, int mode, void*& handle) {
  // Only after the restore point (the shim's: after MPI_Init), in every incarnation. Before it, a
  // restarted process loads again what the first run loaded there, and must get the same
  // addresses: both use the steering then (the trap packs libraries tighter than the kernel,
  // and on a helper thread, whose allocations are glibc's until the restore, glibc would map
  // a heap of its own). The race the trap closes needs another thread mapping and unmapping,
  // which before MPI_Init does not run yet (MPICH's UCX thread, Open MPI's progress threads).
  if (!g_past_restore_point.load() || !g_arena_on.load(std::memory_order_relaxed)) return false;
  std::lock_guard<std::mutex> one(g_trapped);
  std::uintptr_t floor;
  {
    SpinGuard l(g_lock);
    if (g_active > 0 || g_floor <= kLibBase) return false;  // a steered dlopen holds the region
    // Below the libraries a restore placed in ranges given back from the reservation, too.
    floor = g_floor;
    for (int i = 0; i < g_released_count; ++i) floor = std::min(floor, g_released[i].lo);
  }
  TrappedDlopen got;
  {
    LibraryScope scope;  // the helper is not an application thread (it runs as one inside)
    got = dlopen_into_region(g_trampoline, name, mode, kLibBase, floor);
  }
  SpinGuard l(g_lock);
  g_floor = floor;  // below the libraries placed; a failed dlopen leaves its holes unreserved
  if (got.outcome != TrappedDlopen::Outcome::loaded) return false;
  handle = got.handle;
  return true;
}

}  // namespace

bool steers_dlopen(const void* caller) {
  if (!g_region || !g_trampoline) return false;
  Dl_info info;
  link_map* map = nullptr;
  if (dladdr1(caller, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 || !map) return true;
  return map == _r_debug.r_map;  // the executable: the head of the base namespace's list
}

void* steered_dlopen(const char* name, int mode) {
  void* handle = nullptr;
  if (dlopen_trapped_into_region(name, mode, handle)) return handle;
  begin();
  handle = g_trampoline(name, mode);
  const int saved_errno = errno;
  end();
  errno = saved_errno;
  return handle;
}

bool release_for_library(std::uintptr_t lo, std::uintptr_t hi) {
  if (!in_lib_region(lo, hi)) return false;
  SpinGuard l(g_lock);
  if (!g_region || hi > g_floor || g_released_count == kMaxReleased) return false;
  for (int i = 0; i < g_released_count; ++i)
    if (g_released[i].lo < hi && g_released[i].hi > lo) return false;
  map_real().munmap(at(lo), hi - lo);
  g_released[g_released_count++] = {lo, hi};
  return true;
}

void reserve_again(std::uintptr_t lo, std::uintptr_t hi) {
  if (!in_lib_region(lo, hi)) return;
  SpinGuard l(g_lock);
  for (int i = 0; i < g_released_count; ++i)
    if (g_released[i].lo == lo && g_released[i].hi == hi) {
      if (reserve(lo, hi)) g_released[i] = g_released[--g_released_count];
      return;
    }
}

}  // namespace yadokari::memory
