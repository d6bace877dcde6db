// Threads the application creates are application threads (their allocations go to the arena);
// threads created inside a library call (e.g. an MPI progress thread) or before main are
// library threads (glibc allocations, libc's random state) — docs/architecture.md, pitfall 7.
//
// An application thread created after the restore point runs on a stack this layer maps in the
// application's mapping region (or on the stack the application gave it there), so the stack,
// glibc's descriptor at its top and the thread's TLS travel in the image at the same addresses;
// a checkpoint parks the thread (thread_park.cpp) and a restart starts it again on the same stack
// (thread_restart.cpp). Threads started before it are refused while they run: the code before
// the restore point starts them again (checkpoint/memory/README.md, "Threads").
// The OpenMP runtime's pool is not carried: threads libgomp or LLVM's libomp created (the caller
// of pthread_create is in the runtime) idle between parallel regions hold no application state,
// and a fresh runtime simply creates a new pool (openmp.cpp refuses a checkpoint inside a region).
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

#include "checkpoint/memory/src/app_threads.hpp"
#include "checkpoint/memory/src/context.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/next_symbol.hpp"
#include "checkpoint/memory/src/identity.hpp"
#include "checkpoint/memory/src/layout.hpp"
#include "checkpoint/memory/src/openmp_pool_signals.hpp"
#include "checkpoint/memory/src/thread_keys.hpp"
#include "checkpoint/memory/src/thread_restart.hpp"
#include "checkpoint/memory/src/thread_signal_sets.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"

extern "C" void __libc_free(void*);
extern "C" void* __libc_malloc(std::size_t);

namespace yadokari::memory {

YK_TLS int t_slot = -1;

namespace {

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
CreateFn g_create;
struct JoinCalls {
  int (*join)(pthread_t, void**);
  int (*tryjoin)(pthread_t, void**);
  int (*timedjoin)(pthread_t, void**, const struct timespec*);
  int (*clockjoin)(pthread_t, void**, clockid_t, const struct timespec*);
  int (*detach)(pthread_t);
  void (*exit)(void*);
} g_join;

AppThread g_threads[kMaxThreads];
pthread_key_t g_exit_key;
bool g_warned_full;
std::atomic<std::uint64_t> g_next_seq{1};

// Masks a restarted process gives its new pool threads, in creation order (openmp_pool_signals.hpp).
std::uint64_t g_pool_masks[kMaxPoolThreads];
std::uint32_t g_pool_mask_count;
std::atomic<std::uint32_t> g_pool_masks_taken{kMaxPoolThreads};  // none to give before a restore

// Its stack is no longer used by anyone: unmapped (own stacks), the slot free again.
void give_back(AppThread& t) {
  if (t.own_stack) munmap(reinterpret_cast<void*>(t.map_lo), t.map_hi - t.map_lo);
  t.own_stack = false;
  t.used.store(false);
}

// Detached threads that ended and are gone from the kernel (their stack is no longer in use).
void give_back_gone_detached() {
  const pid_t pid = getpid();
  for (AppThread& t : g_threads) {
    if (!t.used.load() || t.running.load() || !t.detached.load()) continue;
    const int id = t.tid.load();
    if (id == 0 || (syscall(SYS_tgkill, pid, id, 0) != 0 && errno == ESRCH)) give_back(t);
  }
}

// The thread's end (however it ends: glibc runs thread-specific-data destructors on return from
// the start routine, pthread_exit and cancellation).
void thread_ended(void* value) {
  auto i = static_cast<int>(reinterpret_cast<std::uintptr_t>(value)) - 1;
  if (i < 0 || i >= kMaxThreads) return;
  AppThread& t = g_threads[i];
  t.running.store(false);
  // A carried thread's slot stays until its stack is given back (joined, or detached and gone):
  // a checkpoint meanwhile carries it as ended. Another's stack is glibc's: nothing to track.
  if (!t.carried) t.used.store(false);
}

bool called_from_openmp_runtime(const void* caller) {
  Dl_info info{};
  return dladdr(caller, &info) && info.dli_fname &&
         (std::strstr(info.dli_fname, "/libgomp.so") || std::strstr(info.dli_fname, "/libomp.so"));
}

YK_TLS bool t_openmp_pool;

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

// Running threads that are not carried (thread_park.cpp names the carried ones it cannot park).
void check() {
  check_pool_signals();
  for (AppThread& t : g_threads) {
    if (!t.used.load() || !t.running.load() || t.openmp_pool || t.carried) continue;
    char where[600], line[760], tid[24];
    describe_code_address(reinterpret_cast<void*>(t.fn), where, sizeof where);
    const int id = t.tid.load();
    std::snprintf(line, sizeof line, "thread %s (started at %s) %s, which is not carried",
                  id ? format_u64(tid, static_cast<unsigned long long>(id)) : "(starting)", where,
                  t.stack_size ? "runs on a stack the application gave it outside its mapped memory"
                               : "was started before MPI_Init");
    refusal_add(line);
  }
}

constexpr const char* kUnresolved = "cannot resolve libc's thread functions";

__attribute__((constructor(101))) void resolve() {
  if (!g_create) {
    resolve_next(g_create, "pthread_create", kUnresolved);
    JoinCalls j{};
    resolve_next(j.join, "pthread_join", kUnresolved);
    resolve_next(j.tryjoin, "pthread_tryjoin_np", kUnresolved);
    resolve_next(j.timedjoin, "pthread_timedjoin_np", kUnresolved);
    resolve_next(j.clockjoin, "pthread_clockjoin_np", kUnresolved);
    resolve_next(j.detach, "pthread_detach", kUnresolved);
    resolve_next(j.exit, "pthread_exit", kUnresolved);
    g_join = j;
  }
  static bool registered;
  if (registered) return;
  registered = true;
  if (pthread_key_create(&g_exit_key, thread_ended) != 0) fatal("pthread_key_create failed");
  register_refusal_check(check);
}

// The stack the application asked for, or none (pthread_attr_getstack gives the top minus the
// size: 0 when no stack address was set).
bool application_stack(const pthread_attr_t* attr, std::uint64_t& lo, std::uint64_t& size) {
  void* addr = nullptr;
  std::size_t len = 0;
  if (!attr || pthread_attr_getstack(attr, &addr, &len) != 0) return false;
  lo = reinterpret_cast<std::uint64_t>(addr);
  size = len;
  return lo + size != 0;
}

// A carried thread's stack: the application's own if it lies in its mapped memory, else one
// mapped here (through the application's mmap, so in its region: a restore maps it back at the
// same address). `mine` is the attribute pthread_create gets then.
bool place_stack(AppThread& t, const pthread_attr_t* attr, pthread_attr_t& mine) {
  std::uint64_t lo = 0, size = 0;
  if (application_stack(attr, lo, size)) {
    t.stack_lo = lo;
    t.stack_size = size;
    return in_map_region(lo, lo + size);
  }
  std::size_t stack = 0, guard = 0;
  pthread_attr_t defaults;
  if (pthread_getattr_default_np(&defaults) != 0) return false;
  pthread_attr_getstacksize(attr ? attr : &defaults, &stack);
  if (stack == 0) pthread_attr_getstacksize(&defaults, &stack);
  pthread_attr_getguardsize(attr ? attr : &defaults, &guard);
  pthread_attr_destroy(&defaults);
  guard = (guard + kPage - 1) & ~(kPage - 1);
  stack = (stack + kPage - 1) & ~(kPage - 1);
  void* map = mmap(nullptr, guard + stack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (map == MAP_FAILED) return false;
  const auto base = reinterpret_cast<std::uint64_t>(map);
  if (!in_map_region(base, base + guard + stack) || (guard && mprotect(map, guard, PROT_NONE) != 0)) {
    munmap(map, guard + stack);
    return false;
  }
  t.own_stack = true;
  t.map_lo = base;
  t.map_hi = base + guard + stack;
  t.stack_lo = base + guard;
  t.stack_size = stack;
  // The caller's other settings (detach state, scheduling, affinity, signal mask) as they are:
  // a bitwise copy shares its CPU set, which only the caller's pthread_attr_destroy frees.
  if (attr)
    std::memcpy(&mine, attr, sizeof mine);
  else
    pthread_attr_init(&mine);
  pthread_attr_setstack(&mine, reinterpret_cast<void*>(t.stack_lo), stack);
  return true;
}

AppThread* slot_of(pthread_t thread) {
  const auto d = static_cast<std::uint64_t>(thread);
  for (AppThread& t : g_threads)
    if (t.used.load() && t.descriptor == d) return &t;
  return nullptr;
}

void joined(pthread_t thread) {
  if (AppThread* t = slot_of(thread); t && !t->running.load()) give_back(*t);
}

}  // namespace

AppThread* app_threads() { return g_threads; }

int real_pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  if (!g_create) resolve();
  return g_create(thread, attr, fn, arg);
}

int take_thread_slot(void* (*fn)(void*), void* arg, bool openmp_pool) {
  for (int i = 0; i < kMaxThreads; ++i) {
    bool expected = false;
    if (g_threads[i].used.compare_exchange_strong(expected, true)) {
      AppThread& t = g_threads[i];
      t.running.store(true);
      t.tid.store(0);
      t.fn = fn;
      t.arg = arg;
      t.openmp_pool = openmp_pool;
      t.carried = t.own_stack = false;
      t.detached.store(false);
      t.returned.store(false);
      t.map_lo = t.map_hi = t.stack_lo = t.stack_size = t.descriptor = t.entry_sp = t.result = 0;
      t.safe_waits.store(0);
      t.wait_caller = 0;
      t.park.store(0);
      t.park_index = -1;
      t.seq = g_next_seq.fetch_add(1);
      return i;
    }
  }
  if (!g_warned_full) say("more than 256 application threads: the others are not checked at a checkpoint");
  g_warned_full = true;
  return -1;
}

void* thread_start(void* p) {
  ThreadStart s = *static_cast<ThreadStart*>(p);
  __libc_free(p);
  t_app = s.app;
  t_lib = !s.app;
  t_slot = s.slot;
  if (s.slot < 0) return s.fn(s.arg);
  AppThread& t = g_threads[s.slot];
  t_openmp_pool = t.openmp_pool;
  if (t_openmp_pool) take_openmp_pool_mask();
  t.descriptor = static_cast<std::uint64_t>(pthread_self());
  t.tid.store(static_cast<int>(gettid()));
  // The layer's own key: libc's function, not the application's (thread_keys.cpp).
  real_pthread_setspecific(g_exit_key, reinterpret_cast<void*>(static_cast<std::uintptr_t>(s.slot) + 1));
  // One call site for both: a thread started again after a restart must enter at the same stack
  // pointer as the first run's (thread_restart.cpp copies the frames below it back).
  void* (*fn)(void*) = s.resume ? resume_carried_thread : s.fn;
  void* arg = s.resume ? s.resume : s.arg;
  void* result = yk_call_recording_sp(fn, arg, &t.entry_sp);
  AppThread& now = g_threads[t_slot];  // after a restart: this process's slot
  now.result = reinterpret_cast<std::uint64_t>(result);
  now.returned.store(true);
  return result;
}

// "worker in /path/prog", or "0x1189 in /path/prog" when the routine is not in the dynamic
// symbol table (a static function, an executable linked without -rdynamic).
void describe_code_address(const void* address, char* out, unsigned long len) {
  Dl_info info{};
  link_map* map = nullptr;
  if (!dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP)) {
    std::snprintf(out, len, "%p", address);
    return;
  }
  const char* object = map && map->l_name && map->l_name[0] ? map->l_name : exe_path();
  if (info.dli_sname)
    std::snprintf(out, len, "%s in %s", info.dli_sname, object);
  else
    std::snprintf(out, len, "0x%lx in %s",
                  static_cast<unsigned long>(reinterpret_cast<std::uintptr_t>(address) - (map ? map->l_addr : 0)),
                  object);
}

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
  auto* s = static_cast<ThreadStart*>(__libc_malloc(sizeof(ThreadStart)));
  if (!s) return EAGAIN;
  const bool app = app_context();
  const int saved_errno = errno;
  give_back_gone_detached();
  const bool pool = app && called_from_openmp_runtime(__builtin_return_address(0));
  const int slot = app ? take_thread_slot(fn, arg, pool) : -1;
  pthread_attr_t mine;
  const pthread_attr_t* use = attr;
  if (slot >= 0 && !pool && g_past_restore_point.load() && use_arena()) {
    AppThread& t = g_threads[slot];
    const bool placed = place_stack(t, attr, mine);
    t.carried = placed;
    if (placed && t.own_stack) use = &mine;
    int state = PTHREAD_CREATE_JOINABLE;
    if (attr) pthread_attr_getdetachstate(attr, &state);
    t.detached.store(state == PTHREAD_CREATE_DETACHED);
  }
  errno = saved_errno;
  *s = ThreadStart{fn, arg, app, slot, nullptr};
  int rc = g_create(thread, use, thread_start, s);
  if (rc != 0) {
    __libc_free(s);
    if (slot >= 0) give_back(g_threads[slot]);
  } else if (slot >= 0) {
    g_threads[slot].descriptor = static_cast<std::uint64_t>(*thread);
  }
  return rc;
}

YK_C_API int pthread_join(pthread_t thread, void** result) {
  if (!g_create) resolve();
  SafeWait wait(__builtin_return_address(0));
  const int rc = g_join.join(thread, result);
  if (rc == 0) joined(thread);
  return rc;
}

YK_C_API int pthread_tryjoin_np(pthread_t thread, void** result) {
  if (!g_create) resolve();
  const int rc = g_join.tryjoin(thread, result);
  if (rc == 0) joined(thread);
  return rc;
}

YK_C_API int pthread_timedjoin_np(pthread_t thread, void** result, const struct timespec* abstime) {
  if (!g_create) resolve();
  SafeWait wait(__builtin_return_address(0));
  const int rc = g_join.timedjoin(thread, result, abstime);
  if (rc == 0) joined(thread);
  return rc;
}

YK_C_API int pthread_clockjoin_np(pthread_t thread, void** result, clockid_t clock, const struct timespec* abstime) {
  if (!g_create) resolve();
  SafeWait wait(__builtin_return_address(0));
  const int rc = g_join.clockjoin(thread, result, clock, abstime);
  if (rc == 0) joined(thread);
  return rc;
}

YK_C_API int pthread_detach(pthread_t thread) {
  if (!g_create) resolve();
  const int rc = g_join.detach(thread);
  if (rc == 0)
    if (AppThread* t = slot_of(thread)) t->detached.store(true);
  return rc;
}

YK_C_API void pthread_exit(void* result) {
  if (!g_create) resolve();
  if (t_slot >= 0) {
    g_threads[t_slot].result = reinterpret_cast<std::uint64_t>(result);
    g_threads[t_slot].returned.store(true);
  }
  g_join.exit(result);
  __builtin_unreachable();
}
