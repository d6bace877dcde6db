// The malloc family, routed: the application's allocations go to the arena, everything else
// (before main, inside library calls, threads the libraries created, a process that still has to
// restore) to glibc. free/realloc/malloc_usable_size route by address, so a block always goes
// back to the allocator it came from. glibc supports replacing malloc this way: its own
// internal calls (strdup, fopen, ...) come through these symbols too.
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "checkpoint/memory/src/layout.hpp"
#include "checkpoint/memory/src/process.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"

extern "C" {
void* __libc_malloc(std::size_t);
void __libc_free(void*);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
}

namespace yadokari::memory {
namespace {

// A test-and-test-and-set lock: uncontended it costs two atomic operations, half of a
// pthread mutex round trip; the application thread is usually the only user.
std::atomic<bool> g_lock{false};

void lock() {
  while (g_lock.exchange(true, std::memory_order_acquire))
    while (g_lock.load(std::memory_order_relaxed)) sched_yield();
}

void unlock() { g_lock.store(false, std::memory_order_release); }

struct Locked {
  Locked() { lock(); }
  ~Locked() { unlock(); }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;
};

void* arena_malloc(std::size_t n) {
  void* p;
  {
    Locked l;
    p = arena()->malloc(n);
  }
  if (!p) errno = ENOMEM;
  return p;
}

void* arena_memalign(std::size_t align, std::size_t n) {
  void* p;
  {
    Locked l;
    p = arena()->memalign(align, n);
  }
  if (!p) errno = ENOMEM;
  return p;
}

std::size_t glibc_usable_size(void* p) {
  if (!g_real.malloc_usable_size) resolve_real_functions();
  return g_real.malloc_usable_size(p);
}

// An arena block (the range check alone would also match if the layer were disabled).
bool ours(const void* p) { return in_arena(p) && g_enabled; }

bool power_of_two(std::size_t a) { return a && !(a & (a - 1)); }

std::size_t round_up_power_of_two(std::size_t a) {
  std::size_t p = 1;
  while (p < a) p <<= 1;
  return p;
}

}  // namespace

void arena_lock() { lock(); }
void arena_unlock() { unlock(); }

}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API void* malloc(std::size_t n) {
  if (!use_arena()) return __libc_malloc(n);
  return arena_malloc(n);
}

YK_C_API void free(void* p) {
  if (!p) return;
  if (ours(p)) {
    Locked l;
    arena()->free(p);
    return;
  }
  __libc_free(p);
}

YK_C_API void* calloc(std::size_t n, std::size_t m) {
  if (!use_arena()) return __libc_calloc(n, m);
  std::size_t bytes;
  if (__builtin_mul_overflow(n, m, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  void* p = arena_malloc(bytes);
  if (p) std::memset(p, 0, bytes);
  return p;
}

YK_C_API void* realloc(void* p, std::size_t n) {
  if (!p) return malloc(n);
  if (ours(p)) {
    if (n == 0) {
      free(p);
      return nullptr;
    }
    void* q;
    {
      Locked l;
      q = arena()->realloc(p, n);
    }
    if (!q) errno = ENOMEM;
    return q;
  }
  if (!use_arena()) return __libc_realloc(p, n);
  // The application grows a block glibc gave it (e.g. before main): move it into the arena so
  // that it is captured from now on.
  if (n == 0) {
    __libc_free(p);
    return nullptr;
  }
  std::size_t old = glibc_usable_size(p);
  void* q = arena_malloc(n);
  if (!q) return nullptr;
  std::memcpy(q, p, old < n ? old : n);
  __libc_free(p);
  return q;
}

YK_C_API void* reallocarray(void* p, std::size_t n, std::size_t m) {
  std::size_t bytes;
  if (__builtin_mul_overflow(n, m, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, bytes);
}

YK_C_API void* memalign(std::size_t align, std::size_t n) {
  if (!use_arena()) return __libc_memalign(align, n);
  return arena_memalign(round_up_power_of_two(align), n);
}

YK_C_API int posix_memalign(void** out, std::size_t align, std::size_t n) {
  if (!power_of_two(align) || align % sizeof(void*)) return EINVAL;
  void* p = use_arena() ? arena_memalign(align, n) : __libc_memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

// glibc 2.36 treats aligned_alloc as memalign (any alignment, rounded up to a power of two).
YK_C_API void* aligned_alloc(std::size_t align, std::size_t n) { return memalign(align, n); }

YK_C_API void* valloc(std::size_t n) {
  std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return use_arena() ? arena_memalign(page, n) : __libc_memalign(page, n);
}

YK_C_API void* pvalloc(std::size_t n) {
  std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::size_t rounded = (n + page - 1) & ~(page - 1);
  if (rounded < n) {
    errno = ENOMEM;
    return nullptr;
  }
  return use_arena() ? arena_memalign(page, rounded ? rounded : page) : __libc_memalign(page, rounded ? rounded : page);
}

YK_C_API std::size_t malloc_usable_size(void* p) {
  if (!p) return 0;
  if (ours(p)) {
    Locked l;
    return arena()->usable_size(p);
  }
  return glibc_usable_size(p);
}
