// Threads the application creates are application threads (their allocations go to the arena);
// threads created inside a library call (e.g. an MPI progress thread) or before main are
// library threads (glibc allocations, libc's random state) — docs/architecture.md, pitfall 7.
//
// Only the thread that runs main is resumed after a restart, so a checkpoint is refused while
// another application thread is alive (checkpoint/memory/README.md, "Refused, with the reason").
// The exception is the OpenMP runtime's pool: threads libgomp or LLVM's libomp created (the caller
// of pthread_create is in the runtime) idle between parallel regions hold no application state, and
// a fresh runtime simply creates a new pool (openmp.cpp refuses a checkpoint inside a region).
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/identity.hpp"
#include "checkpoint/memory/src/openmp_pool_signals.hpp"
#include "checkpoint/memory/src/thread_keys.hpp"
#include "checkpoint/memory/src/thread_signal_sets.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"

extern "C" void __libc_free(void*);
extern "C" void* __libc_malloc(std::size_t);

namespace yadokari::memory {
namespace {

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
CreateFn g_create;

// A live application thread. The slot is taken before the thread exists (so a checkpoint right
// after pthread_create returns sees it) and freed by a thread-specific-data destructor, which
// glibc runs however the thread ends: return from the start routine, pthread_exit, cancellation.
struct AppThread {
  std::atomic<bool> used;
  std::atomic<int> tid;  // 0 until the thread runs
  void* (*fn)(void*);
  bool openmp_pool;   // created by libgomp or libomp
  std::uint64_t seq;  // creation order
};

constexpr int kMaxThreads = 256;
AppThread g_threads[kMaxThreads];
pthread_key_t g_exit_key;
bool g_warned_full;
std::atomic<std::uint64_t> g_next_seq{1};

// Masks a restarted process gives its new pool threads, in creation order (openmp_pool_signals.hpp).
std::uint64_t g_pool_masks[kMaxPoolThreads];
std::uint32_t g_pool_mask_count;
std::atomic<std::uint32_t> g_pool_masks_taken{kMaxPoolThreads};  // none to give before a restore

struct Start {
  void* (*fn)(void*);
  void* arg;
  bool app;
  int slot;  // -1: not tracked
};

int take_slot(void* (*fn)(void*), bool openmp_pool) {
  for (int i = 0; i < kMaxThreads; ++i) {
    bool expected = false;
    if (g_threads[i].used.compare_exchange_strong(expected, true)) {
      g_threads[i].tid.store(0);
      g_threads[i].fn = fn;
      g_threads[i].openmp_pool = openmp_pool;
      g_threads[i].seq = g_next_seq.fetch_add(1);
      return i;
    }
  }
  if (!g_warned_full) say("more than 256 application threads: the others are not checked at a checkpoint");
  g_warned_full = true;
  return -1;
}

void free_slot(void* value) {
  auto i = static_cast<int>(reinterpret_cast<std::uintptr_t>(value)) - 1;
  if (i >= 0 && i < kMaxThreads) g_threads[i].used.store(false);
}

bool called_from_openmp_runtime(const void* caller) {
  Dl_info info{};
  return dladdr(caller, &info) && info.dli_fname &&
         (std::strstr(info.dli_fname, "/libgomp.so") || std::strstr(info.dli_fname, "/libomp.so"));
}

YK_TLS bool t_openmp_pool;

void* thread_start(void* p) {
  Start s = *static_cast<Start*>(p);
  __libc_free(p);
  t_app = s.app;
  t_lib = !s.app;
  if (s.slot >= 0) {
    t_openmp_pool = g_threads[s.slot].openmp_pool;
    if (t_openmp_pool) take_openmp_pool_mask();
    g_threads[s.slot].tid.store(static_cast<int>(gettid()));
    // The layer's own key: libc's function, not the application's (thread_keys.cpp).
    real_pthread_setspecific(g_exit_key, reinterpret_cast<void*>(static_cast<std::uintptr_t>(s.slot) + 1));
  }
  return s.fn(s.arg);
}

// "worker in /path/prog", or "0x1189 in /path/prog" when the routine is not in the dynamic
// symbol table (a static function, an executable linked without -rdynamic).
void describe_routine(void* (*fn)(void*), char* out, std::size_t len) {
  Dl_info info{};
  link_map* map = nullptr;
  if (!dladdr1(reinterpret_cast<void*>(fn), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP)) {
    std::snprintf(out, len, "%p", reinterpret_cast<void*>(fn));
    return;
  }
  const char* object = map && map->l_name && map->l_name[0] ? map->l_name : exe_path();
  if (info.dli_sname)
    std::snprintf(out, len, "%s in %s", info.dli_sname, object);
  else
    std::snprintf(out, len, "0x%lx in %s",
                  static_cast<unsigned long>(reinterpret_cast<std::uintptr_t>(fn) - (map ? map->l_addr : 0)), object);
}

// A thread's mask and the signals waiting in its own queue.
bool read_thread_signals(int tid, std::uint64_t& blocked, std::uint64_t& pending) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
  ThreadSignalSets sets;
  if (!read_thread_signal_sets(path, sets)) return false;
  blocked = sets.blocked;
  pending = sets.pending;
  return true;
}

void check_pool_signals() {
  std::uint64_t named = 0;  // one line per signal, however many pool threads it waits for
  for (AppThread& t : g_threads) {
    const int id = t.tid.load();
    std::uint64_t blocked = 0, pending = 0;
    if (!t.used.load() || !t.openmp_pool || !id || !read_thread_signals(id, blocked, pending)) continue;
    for (int sig = 1; sig <= 64; ++sig) {
      const std::uint64_t bit = std::uint64_t{1} << (sig - 1);
      if (!(pending & bit) || (named & bit)) continue;
      named |= bit;
      char line[160];
      std::snprintf(line, sizeof line,
                    "signal %d waits for an idle OpenMP thread (blocked there), which is not carried", sig);
      refusal_add(line);
    }
  }
}

void check() {
  check_pool_signals();
  for (AppThread& t : g_threads) {
    if (!t.used.load() || t.openmp_pool) continue;
    char where[600], line[700], tid[24];
    describe_routine(t.fn, where, sizeof where);
    const int id = t.tid.load();
    std::snprintf(line, sizeof line, "thread %s (started at %s) is running application code, which is not carried",
                  id ? format_u64(tid, static_cast<unsigned long long>(id)) : "(starting)", where);
    refusal_add(line);
  }
}

__attribute__((constructor(101))) void resolve() {
  if (!g_create) g_create = reinterpret_cast<CreateFn>(dlsym(RTLD_NEXT, "pthread_create"));
  static bool registered;
  if (registered) return;
  registered = true;
  if (pthread_key_create(&g_exit_key, free_slot) != 0) fatal("pthread_key_create failed");
  register_refusal_check(check);
}

}  // namespace

std::uint32_t openmp_pool_masks(std::uint64_t* out, std::uint32_t cap) {
  struct Entry {
    std::uint64_t seq, mask;
  };
  static Entry found[kMaxPoolThreads];  // the capture runs on one thread
  std::uint32_t count = 0;
  for (AppThread& t : g_threads) {
    const int id = t.tid.load();
    std::uint64_t blocked = 0, pending = 0;
    if (!t.used.load() || !t.openmp_pool || !id || count == kMaxPoolThreads ||
        !read_thread_signals(id, blocked, pending))
      continue;
    found[count++] = {t.seq, blocked};
  }
  // Oldest first (a small insertion sort: the pool has a thread per core or so).
  for (std::uint32_t i = 1; i < count; ++i)
    for (std::uint32_t j = i; j > 0 && found[j - 1].seq > found[j].seq; --j) std::swap(found[j - 1], found[j]);
  for (std::uint32_t i = 0; i < count && i < cap; ++i) out[i] = found[i].mask;
  return count;
}

void expect_openmp_pool_masks(const std::uint64_t* masks, std::uint32_t count) {
  g_pool_mask_count = count < kMaxPoolThreads ? count : kMaxPoolThreads;
  for (std::uint32_t i = 0; i < g_pool_mask_count; ++i) g_pool_masks[i] = masks[i];
  g_pool_masks_taken.store(0);
}

bool on_openmp_pool_thread() { return t_openmp_pool; }

void take_openmp_pool_mask() {
  const std::uint32_t i = g_pool_masks_taken.fetch_add(1);
  if (i >= g_pool_mask_count) return;
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig = 1; sig <= 64; ++sig)
    if ((g_pool_masks[i] >> (sig - 1)) & 1) sigaddset(&mask, sig);
  pthread_sigmask(SIG_SETMASK, &mask, nullptr);
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  if (!g_create) resolve();
  auto* s = static_cast<Start*>(__libc_malloc(sizeof(Start)));
  if (!s) return EAGAIN;
  const bool app = app_context();
  const int saved_errno = errno;
  const int slot = app ? take_slot(fn, called_from_openmp_runtime(__builtin_return_address(0))) : -1;
  errno = saved_errno;
  *s = Start{fn, arg, app, slot};
  int rc = g_create(thread, attr, thread_start, s);
  if (rc != 0) {
    __libc_free(s);
    if (slot >= 0) g_threads[slot].used.store(false);
  }
  return rc;
}
