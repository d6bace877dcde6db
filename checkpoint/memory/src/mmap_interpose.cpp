// The application's mmap/munmap/mremap/mprotect (app_mappings.hpp). A mapping made in
// application context (the rule of the arena: routing.hpp, use_arena()) is placed in the
// reserved region with MAP_FIXED at the lowest free address of the table, and recorded; its
// address hint is ignored (a hint is advisory). munmap, mremap and mprotect act by address,
// whoever calls them: inside the region an unmapped range goes back to the reservation. Calls of
// libraries (MPI, glibc's own mmap for malloc, which never comes through here) pass through.
// madvise is not interposed: MADV_DONTNEED/MADV_FREE change contents, which the capture reads.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "common/export.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/layout.hpp"
#include "checkpoint/memory/src/mapping_live.hpp"
#include "checkpoint/memory/src/overwrite_journal_note.hpp"
#include "checkpoint/memory/src/routing.hpp"

namespace yadokari::memory {
namespace {

MappingTable g_table;
std::atomic<bool> g_lock{false};
MapReal g_real_map;
bool g_region;
char g_problem[160];

constexpr std::uint64_t kPageMask = kPage - 1;
std::uint64_t page_up(std::uint64_t n) { return (n + kPageMask) & ~kPageMask; }
std::uint64_t as_u64(const void* p) { return reinterpret_cast<std::uint64_t>(p); }
void* as_ptr(std::uint64_t a) { return reinterpret_cast<void*>(a); }

void resolve() {
  if (g_real_map.mprotect) return;
  MapReal r{};
  r.mmap = reinterpret_cast<decltype(r.mmap)>(dlsym(RTLD_NEXT, "mmap"));
  r.munmap = reinterpret_cast<decltype(r.munmap)>(dlsym(RTLD_NEXT, "munmap"));
  r.mremap = reinterpret_cast<decltype(r.mremap)>(dlsym(RTLD_NEXT, "mremap"));
  r.mprotect = reinterpret_cast<decltype(r.mprotect)>(dlsym(RTLD_NEXT, "mprotect"));
  if (!r.mmap || !r.munmap || !r.mremap || !r.mprotect) fatal("cannot resolve libc's mmap/munmap/mremap/mprotect");
  g_real_map = r;
}

// Load time (docs/architecture.md, pitfall 8), after startup.cpp (priority 101) decided whether the layer is on.
__attribute__((constructor(102))) void reserve_region() {
  resolve();
  if (!g_enabled) return;
  void* p = g_real_map.mmap(as_ptr(kMapBase), kMapReserve, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == as_ptr(kMapBase)) {
    g_region = true;
    return;
  }
  if (p != MAP_FAILED) g_real_map.munmap(p, kMapReserve);
  say("cannot reserve the region for the application's mappings at its fixed address; its mmap()s will refuse "
      "checkpoints");
}

bool in_region(std::uint64_t lo, std::uint64_t hi) { return g_region && in_map_region(lo, hi); }
bool touches_region(std::uint64_t lo, std::uint64_t hi) {
  return g_region && lo < kMapBase + kMapReserve && hi > kMapBase;
}

// Any recorded mapping or the region in [lo, hi): the calls that must keep the table exact.
bool ours(std::uint64_t lo, std::uint64_t hi) {
  if (touches_region(lo, hi)) return true;
  MappingsLocked l;
  return g_table.overlaps(lo, hi);
}

void note(bool recorded, std::uint64_t addr) {
  if (!recorded) set_mapping_problem("the application has more mappings than the table holds (256), from ", addr);
}

MapRecord describe(std::uint64_t addr, std::uint64_t len, int prot, int flags, int fd, off_t offset) {
  MapRecord r{};
  r.addr = addr;
  r.len = len;
  r.prot = static_cast<std::uint32_t>(prot);
  r.flags = static_cast<std::uint32_t>(flags & (MAP_NORESERVE | MAP_GROWSDOWN | MAP_HUGETLB | MAP_LOCKED | MAP_STACK));
  r.accessible = prot != PROT_NONE;
  const bool shared = (flags & MAP_TYPE) != MAP_PRIVATE;
  if (flags & MAP_ANONYMOUS) {
    r.backing = shared ? MapBacking::anon_shared : MapBacking::anon_private;
    return r;
  }
  r.backing = shared ? MapBacking::file_shared : MapBacking::file_private;
  r.offset = static_cast<std::uint64_t>(offset);
  struct stat st {};
  // A shared mapping of anything but a regular file (dev, ino 0) is refused at the checkpoint.
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    r.dev = st.st_dev;
    r.ino = st.st_ino;
  }
  // Only such a mapping (or a write through another descriptor) can change the file: its length
  // is put back at a restart (capture_mapping_table).
  r.file_writable = (fcntl(fd, F_GETFL) & O_ACCMODE) != O_RDONLY;
  char link[40];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, r.path, sizeof r.path - 1);
  r.path[n > 0 ? n : 0] = '\0';
  if (n >= static_cast<ssize_t>(sizeof r.path) - 1) r.dev = r.ino = 0;  // truncated path
  return r;
}

// MAP_FIXED outside the region: carried when it lands on free address space or on the
// application's own mappings; over anything else (a library, the executable...) it is done as
// asked, and every later checkpoint is refused.
void* fixed_outside(void* addr, std::size_t len, int prot, int flags, int fd, off_t offset) {
  const std::uint64_t lo = as_u64(addr), hi = lo + page_up(len);
  MappingsLocked l;
  int probe_flags = (flags & ~MAP_FIXED) | MAP_FIXED_NOREPLACE;
  void* p = g_real_map.mmap(addr, len, prot, probe_flags, fd, offset);
  if (p == MAP_FAILED && errno == EEXIST && (flags & MAP_FIXED)) {
    bool own = g_table.covers(lo, hi);
    p = g_real_map.mmap(addr, len, prot, flags, fd, offset);
    if (p != MAP_FAILED && !own) {
      set_mapping_problem("the application mapped over memory it does not own (MAP_FIXED) at ", lo);
      g_table.remove(lo, hi);
      return p;
    }
  }
  if (p == MAP_FAILED) return p;
  note(g_table.remove(lo, hi) && g_table.insert(describe(lo, hi - lo, prot, flags, fd, offset)), lo);
  return p;
}

}  // namespace

const MapReal& map_real() {
  resolve();
  return g_real_map;
}
MappingTable& live_mappings() { return g_table; }
MappingsLocked::MappingsLocked() {
  while (g_lock.exchange(true, std::memory_order_acquire))
    while (g_lock.load(std::memory_order_relaxed)) {
    }
}
MappingsLocked::~MappingsLocked() { g_lock.store(false, std::memory_order_release); }
bool map_region_reserved() { return g_region; }
bool map_reserve(std::uint64_t lo, std::uint64_t len) {
  return g_real_map.mmap(as_ptr(lo), len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) ==
         as_ptr(lo);
}
const char* mapping_problem() { return g_problem[0] ? g_problem : nullptr; }
void set_mapping_problem(const char* what, std::uint64_t addr) {
  if (g_problem[0]) return;  // the first one explains it
  std::snprintf(g_problem, sizeof g_problem, "%s%#llx", what, static_cast<unsigned long long>(addr));
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

namespace {

// An application's mmap: placed in the region and recorded (the file's comment above).
void* map_and_record(void* addr, std::size_t len, int prot, int flags, int fd, off_t offset) {
  const std::uint64_t want = as_u64(addr), size = page_up(len);
  if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
    if (!in_region(want, want + size)) return fixed_outside(addr, len, prot, flags, fd, offset);
    MappingsLocked l;
    if ((flags & MAP_FIXED_NOREPLACE) && g_table.overlaps(want, want + size)) {
      errno = EEXIST;
      return MAP_FAILED;
    }
    // Inside the region the reservation is replaced, as the application asked.
    void* p = g_real_map.mmap(addr, len, prot, (flags & ~MAP_FIXED_NOREPLACE) | MAP_FIXED, fd, offset);
    if (p != MAP_FAILED)
      note(g_table.remove(want, want + size) && g_table.insert(describe(want, size, prot, flags, fd, offset)), want);
    return p;
  }
  if (!g_region || (flags & MAP_32BIT)) {
    void* p = g_real_map.mmap(addr, len, prot, flags, fd, offset);
    if (p != MAP_FAILED) {
      MappingsLocked l;
      if (!g_region)
        set_mapping_problem("the application mapped memory while its region is not reserved, at ", as_u64(p));
      note(g_table.insert(describe(as_u64(p), size, prot, flags, fd, offset)), as_u64(p));
    }
    return p;
  }
  MappingsLocked l;
  std::uint64_t at = g_table.full() ? 0 : g_table.find_gap(size, kMapBase, kMapBase + kMapReserve);
  if (!at) {  // the table or the region is full: the kernel places it, and checkpoints are refused
    void* p = g_real_map.mmap(addr, len, prot, flags, fd, offset);
    if (p != MAP_FAILED) note(false, as_u64(p));
    return p;
  }
  void* p = g_real_map.mmap(as_ptr(at), len, prot, flags | MAP_FIXED, fd, offset);
  if (p != MAP_FAILED) note(g_table.insert(describe(at, size, prot, flags, fd, offset)), at);
  return p;
}

bool stores_reach_file(int prot, int flags) {
  return (prot & PROT_WRITE) && !(flags & MAP_ANONYMOUS) && (flags & MAP_TYPE) != MAP_PRIVATE;
}

// The overwrite journal keeps the file bytes the application can now store into, before it can:
// [from, to) of the recorded mapping holding [lo, hi), if that is a writable shared file mapping.
void before_stores_into(std::uint64_t lo, std::uint64_t hi, std::uint64_t from, std::uint64_t to) {
  if (!overwrite_journal_on()) return;
  MapRecord r{};
  {
    MappingsLocked l;
    const int i = g_table.containing(lo, hi);
    if (i < 0) return;
    r = g_table.at(i);
  }
  if (r.prot & PROT_WRITE) before_mapping_writes(r, from, to - from);
}

}  // namespace

YK_C_API void* mmap(void* addr, std::size_t len, int prot, int flags, int fd, off_t offset) {
  resolve();
  if (!use_arena() || len == 0) return g_real_map.mmap(addr, len, prot, flags, fd, offset);
  void* p = map_and_record(addr, len, prot, flags, fd, offset);
  const std::uint64_t at = as_u64(p), end = at + page_up(len);
  if (p != MAP_FAILED && stores_reach_file(prot, flags)) before_stores_into(at, end, at, end);
  return p;
}

YK_C_API void* mmap64(void* addr, std::size_t len, int prot, int flags, int fd, off_t offset) {
  return mmap(addr, len, prot, flags, fd, offset);
}

YK_C_API int munmap(void* addr, std::size_t len) {
  resolve();
  const std::uint64_t lo = as_u64(addr), hi = lo + page_up(len);
  if (len == 0 || (lo & kPageMask) || hi < lo || !ours(lo, hi)) return g_real_map.munmap(addr, len);
  MappingsLocked l;
  // The part inside the region goes back to the reservation, the rest is unmapped.
  std::uint64_t rlo = lo < kMapBase ? kMapBase : lo, rhi = hi > kMapBase + kMapReserve ? kMapBase + kMapReserve : hi;
  if (g_region && rlo < rhi) {
    if (!map_reserve(rlo, rhi - rlo)) return -1;
    if (lo < rlo && g_real_map.munmap(addr, rlo - lo) != 0) return -1;
    if (rhi < hi && g_real_map.munmap(as_ptr(rhi), hi - rhi) != 0) return -1;
  } else if (g_real_map.munmap(addr, len) != 0) {
    return -1;
  }
  note(g_table.remove(lo, hi), lo);
  return 0;
}

YK_C_API int mprotect(void* addr, std::size_t len, int prot) {
  resolve();
  const std::uint64_t lo = as_u64(addr), hi = lo + page_up(len);
  if (len == 0 || hi < lo || !ours(lo, hi)) return g_real_map.mprotect(addr, len, prot);
  if (prot & PROT_WRITE) before_protection_adds_write(lo, hi);  // the overwrite journal, as in mmap
  MappingsLocked l;
  if (g_real_map.mprotect(addr, len, prot) != 0) return -1;
  note(g_table.protect(lo, hi, static_cast<std::uint32_t>(prot)), lo);
  return 0;
}

namespace {

// mremap of (part of) one recorded mapping. Growing in the region: in place when the addresses
// after it are free (the reservation there is given up first), else moved to the lowest free
// range (MREMAP_MAYMOVE); the old range goes back to the reservation.
void* remap_recorded(std::uint64_t old, std::uint64_t old_size, std::uint64_t new_size, int flags, void* new_addr) {
  int i = g_table.containing(old, old + old_size);
  if (i < 0 || old_size == 0 || (flags & MREMAP_DONTUNMAP)) {
    void* p = g_real_map.mremap(as_ptr(old), old_size, new_size, flags, new_addr);
    if (p != MAP_FAILED)
      set_mapping_problem("the application remapped memory in a way that cannot be carried, at ", old);
    return p;
  }
  MapRecord piece = g_table.at(i);
  if (piece.backing == MapBacking::file_private || piece.backing == MapBacking::file_shared)
    piece.offset += old - piece.addr;
  const std::uint64_t grown = page_up(new_size);
  const bool region = in_region(old, old + old_size);
  std::uint64_t target = old;
  if (flags & MREMAP_FIXED) {
    target = as_u64(new_addr);
    if (!in_region(target, target + grown) && region)
      set_mapping_problem("the application moved a mapping out of its region (MREMAP_FIXED) to ", target);
  } else if (grown > old_size && region) {
    const std::uint64_t tail = old + old_size;
    bool free_after = in_region(tail, old + grown) && !g_table.overlaps(tail, old + grown);
    if (!free_after) {
      if (!(flags & MREMAP_MAYMOVE)) {
        errno = ENOMEM;
        return MAP_FAILED;
      }
      target = g_table.find_gap(grown, kMapBase, kMapBase + kMapReserve);
      if (!target) {
        errno = ENOMEM;
        return MAP_FAILED;
      }
      flags |= MREMAP_MAYMOVE | MREMAP_FIXED;
    } else if (g_real_map.munmap(as_ptr(tail), grown - old_size) != 0) {
      return MAP_FAILED;
    }
  }
  void* p = g_real_map.mremap(as_ptr(old), old_size, new_size, flags, as_ptr(target));
  if (p == MAP_FAILED) {
    if (target == old && grown > old_size && region) map_reserve(old + old_size, grown - old_size);
    return p;
  }
  const std::uint64_t now = as_u64(p);
  // What the kernel gave up: the old range if it moved, else the tail if it shrank.
  std::uint64_t freed_lo = now == old ? old + grown : old, freed_hi = old + old_size;
  bool ok = g_table.remove(old, old + old_size);
  if (freed_lo < freed_hi && in_region(freed_lo, freed_hi)) map_reserve(freed_lo, freed_hi - freed_lo);
  piece.addr = now;
  piece.len = grown;
  ok = ok && g_table.remove(now, now + grown) && g_table.insert(piece);
  note(ok, now);
  return p;
}

}  // namespace

YK_C_API void* mremap(void* old_addr, std::size_t old_size, std::size_t new_size, int flags, ...) {
  resolve();
  void* new_addr = nullptr;
  if (flags & MREMAP_FIXED) {
    va_list ap;
    va_start(ap, flags);
    new_addr = va_arg(ap, void*);
    va_end(ap);
  }
  const std::uint64_t lo = as_u64(old_addr), hi = lo + page_up(old_size);
  if ((lo & kPageMask) || !ours(lo, hi == lo ? lo + 1 : hi))
    return g_real_map.mremap(old_addr, old_size, new_size, flags, new_addr);
  void* p;
  {
    MappingsLocked l;
    p = remap_recorded(lo, page_up(old_size), new_size, flags, new_addr);
  }
  // A writable shared file mapping grown: the file bytes of its new part, as in mmap.
  const std::uint64_t now = as_u64(p), end = now + page_up(new_size);
  if (p != MAP_FAILED && page_up(new_size) > page_up(old_size))
    before_stores_into(now, end, now + page_up(old_size), end);
  return p;
}
