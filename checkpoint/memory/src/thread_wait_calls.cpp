// The waits a carried thread may be parked in (app_threads.hpp, SafeWait): their state is in the
// application's memory (a mutex, a condition variable, a semaphore, a barrier) or in the kernel's
// wait, which the signal's return makes again, so the park handler may stop a thread inside them.
// The waits POSIX lets a signal handler cut short (sem_wait, nanosleep and what sleeps through
// it) go on when it was the park's signal that cut them (t_parks changed meanwhile): before, in
// the first run, and after a restart, where the thread resumes inside the interrupted call.
// pthread_join is wrapped in threads.cpp.
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include "checkpoint/memory/src/app_threads.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/next_symbol.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

struct WaitCalls {
  int (*cond_wait)(pthread_cond_t*, pthread_mutex_t*);
  int (*cond_timedwait)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*);
  int (*cond_clockwait)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*);
  int (*mutex_lock)(pthread_mutex_t*);
  int (*mutex_timedlock)(pthread_mutex_t*, const struct timespec*);
  int (*rwlock_rdlock)(pthread_rwlock_t*);
  int (*rwlock_wrlock)(pthread_rwlock_t*);
  int (*barrier_wait)(pthread_barrier_t*);
  int (*sem_wait)(sem_t*);
  int (*sem_timedwait)(sem_t*, const struct timespec*);
  int (*sem_clockwait)(sem_t*, clockid_t, const struct timespec*);
  int (*nanosleep)(const struct timespec*, struct timespec*);
  int (*clock_nanosleep)(clockid_t, int, const struct timespec*, struct timespec*);
} g_wait;

constexpr const char* kUnresolved = "cannot resolve libc's waiting functions";

__attribute__((constructor(101))) void resolve() {
  if (g_wait.clock_nanosleep) return;
  WaitCalls w{};
  resolve_next(w.cond_wait, "pthread_cond_wait", kUnresolved);
  resolve_next(w.cond_timedwait, "pthread_cond_timedwait", kUnresolved);
  resolve_next(w.cond_clockwait, "pthread_cond_clockwait", kUnresolved);
  resolve_next(w.mutex_lock, "pthread_mutex_lock", kUnresolved);
  resolve_next(w.mutex_timedlock, "pthread_mutex_timedlock", kUnresolved);
  resolve_next(w.rwlock_rdlock, "pthread_rwlock_rdlock", kUnresolved);
  resolve_next(w.rwlock_wrlock, "pthread_rwlock_wrlock", kUnresolved);
  resolve_next(w.barrier_wait, "pthread_barrier_wait", kUnresolved);
  resolve_next(w.sem_wait, "sem_wait", kUnresolved);
  resolve_next(w.sem_timedwait, "sem_timedwait", kUnresolved);
  resolve_next(w.sem_clockwait, "sem_clockwait", kUnresolved);
  resolve_next(w.nanosleep, "nanosleep", kUnresolved);
  resolve_next(w.clock_nanosleep, "clock_nanosleep", kUnresolved);
  g_wait = w;
}

const WaitCalls& real() {
  if (!g_wait.clock_nanosleep) resolve();
  return g_wait;
}

// A wait that returns -1 and EINTR when a handler ran: called again while the park's signal was it.
template <typename Call>
int unless_parked(const void* caller, Call call) {
  SafeWait wait(caller);
  for (;;) {
    const std::uint32_t parks = t_parks;
    const int r = call();
    if (r == 0 || errno != EINTR || t_parks == parks) return r;
  }
}

// The rest of a relative sleep after the park's signal cut it (the kernel wrote what was left).
int sleep_for(const void* caller, const struct timespec* request, struct timespec* remaining) {
  SafeWait wait(caller);
  struct timespec want = *request, left{};
  for (;;) {
    const std::uint32_t parks = t_parks;
    const int r = real().nanosleep(&want, &left);
    if (r == 0 || errno != EINTR || t_parks == parks) {
      if (r != 0 && remaining) *remaining = left;
      return r;
    }
    want = left;
  }
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int pthread_cond_wait(pthread_cond_t* cond, pthread_mutex_t* mutex) {
  SafeWait wait(__builtin_return_address(0));
  return real().cond_wait(cond, mutex);
}
YK_C_API int pthread_cond_timedwait(pthread_cond_t* cond, pthread_mutex_t* mutex, const struct timespec* abstime) {
  SafeWait wait(__builtin_return_address(0));
  return real().cond_timedwait(cond, mutex, abstime);
}
YK_C_API int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                    const struct timespec* abstime) {
  SafeWait wait(__builtin_return_address(0));
  return real().cond_clockwait(cond, mutex, clock, abstime);
}
YK_C_API int pthread_mutex_lock(pthread_mutex_t* mutex) {
  SafeWait wait(__builtin_return_address(0));
  return real().mutex_lock(mutex);
}
YK_C_API int pthread_mutex_timedlock(pthread_mutex_t* mutex, const struct timespec* abstime) {
  SafeWait wait(__builtin_return_address(0));
  return real().mutex_timedlock(mutex, abstime);
}
YK_C_API int pthread_rwlock_rdlock(pthread_rwlock_t* lock) {
  SafeWait wait(__builtin_return_address(0));
  return real().rwlock_rdlock(lock);
}
YK_C_API int pthread_rwlock_wrlock(pthread_rwlock_t* lock) {
  SafeWait wait(__builtin_return_address(0));
  return real().rwlock_wrlock(lock);
}
YK_C_API int pthread_barrier_wait(pthread_barrier_t* barrier) {
  SafeWait wait(__builtin_return_address(0));
  return real().barrier_wait(barrier);
}
YK_C_API int sem_wait(sem_t* sem) {
  return unless_parked(__builtin_return_address(0), [&] { return real().sem_wait(sem); });
}
YK_C_API int sem_timedwait(sem_t* sem, const struct timespec* abstime) {
  return unless_parked(__builtin_return_address(0), [&] { return real().sem_timedwait(sem, abstime); });
}
YK_C_API int sem_clockwait(sem_t* sem, clockid_t clock, const struct timespec* abstime) {
  return unless_parked(__builtin_return_address(0), [&] { return real().sem_clockwait(sem, clock, abstime); });
}
YK_C_API int nanosleep(const struct timespec* request, struct timespec* remaining) {
  return sleep_for(__builtin_return_address(0), request, remaining);
}
YK_C_API int clock_nanosleep(clockid_t clock, int flags, const struct timespec* request, struct timespec* remaining) {
  SafeWait wait(__builtin_return_address(0));
  struct timespec want = *request, left{};
  for (;;) {
    const std::uint32_t parks = t_parks;
    const int r = real().clock_nanosleep(clock, flags, &want, &left);
    if (r != EINTR || t_parks == parks) {
      if (r == EINTR && remaining && !(flags & TIMER_ABSTIME)) *remaining = left;
      return r;
    }
    if (!(flags & TIMER_ABSTIME)) want = left;
  }
}
// glibc's sleep and usleep call its nanosleep internally (not through this one): the same, here.
YK_C_API unsigned sleep(unsigned seconds) {
  const int saved_errno = errno;
  const struct timespec request { static_cast<time_t>(seconds), 0 };
  struct timespec left {};
  if (sleep_for(__builtin_return_address(0), &request, &left) != 0) return static_cast<unsigned>(left.tv_sec);
  errno = saved_errno;
  return 0;
}
YK_C_API int usleep(useconds_t microseconds) {
  const struct timespec request {
    static_cast<time_t>(microseconds / 1000000), static_cast<long>(microseconds % 1000000) * 1000
  };
  return sleep_for(__builtin_return_address(0), &request, nullptr);
}
