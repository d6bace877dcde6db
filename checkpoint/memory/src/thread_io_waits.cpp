// Waits for descriptors or signals that an application thread may be parked in, like those of
// thread_wait_calls.cpp: poll, ppoll, select, pselect, epoll_wait, epoll_pwait, pause and
// sigsuspend, when the application's code called them. POSIX never restarts them after a signal
// handler, so the park's signal would make them fail with EINTR; when it was that signal, they are
// called again with what is left of their timeout, in the first run and after a restart (where the
// thread resumes inside the interrupted call). Their descriptors are the application's: carried
// (files) or the checkpoint is refused for them (a socket, a pipe, an epoll instance...). Threads
// that are not the application's (the MPI library's progress threads) call libc directly.
// Fortified builds (-D_FORTIFY_SOURCE, as distributions build their packages) call glibc's
// __poll_chk/__ppoll_chk instead, which reach the kernel without passing through poll: wrapped too.
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "checkpoint/memory/src/app_threads.hpp"
#include "checkpoint/memory/src/next_symbol.hpp"
#include "common/export.hpp"

extern "C" [[noreturn]] void __chk_fail(void);  // glibc's, exported since 2.3.4

namespace yadokari::memory {
namespace {

struct IoWaitCalls {
  int (*poll)(struct pollfd*, nfds_t, int);
  int (*ppoll)(struct pollfd*, nfds_t, const struct timespec*, const sigset_t*);
  int (*select)(int, fd_set*, fd_set*, fd_set*, struct timeval*);
  int (*pselect)(int, fd_set*, fd_set*, fd_set*, const struct timespec*, const sigset_t*);
  int (*epoll_wait)(int, struct epoll_event*, int, int);
  int (*epoll_pwait)(int, struct epoll_event*, int, int, const sigset_t*);
  int (*pause)();
  int (*sigsuspend)(const sigset_t*);
} g_io;

constexpr const char* kUnresolved = "cannot resolve libc's functions that wait for descriptors";

__attribute__((constructor(101))) void resolve() {
  if (g_io.sigsuspend) return;
  IoWaitCalls w{};
  resolve_next(w.poll, "poll", kUnresolved);
  resolve_next(w.ppoll, "ppoll", kUnresolved);
  resolve_next(w.select, "select", kUnresolved);
  resolve_next(w.pselect, "pselect", kUnresolved);
  resolve_next(w.epoll_wait, "epoll_wait", kUnresolved);
  resolve_next(w.epoll_pwait, "epoll_pwait", kUnresolved);
  resolve_next(w.pause, "pause", kUnresolved);
  resolve_next(w.sigsuspend, "sigsuspend", kUnresolved);
  g_io = w;
}

const IoWaitCalls& real() {
  if (!g_io.sigsuspend) resolve();
  return g_io;
}

std::int64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

// A timeout as it is left at `deadline_ns` (never negative).
timespec left_until(std::int64_t deadline_ns) {
  const std::int64_t left = std::max<std::int64_t>(deadline_ns - now_ns(), 0);
  return {static_cast<time_t>(left / 1000000000), static_cast<long>(left % 1000000000)};
}

int left_ms(std::int64_t deadline_ns) {
  const timespec left = left_until(deadline_ns);
  return static_cast<int>(left.tv_sec * 1000 + (left.tv_nsec + 999999) / 1000000);
}

// Calls `call(first)` again while the park's signal was what cut it short; a call with a timeout
// passes its own on the first call and what is left of it after that.
template <typename Call>
int go_on_after_parks(const void* caller, Call call) {
  SafeWait wait(caller);
  for (bool first = true;; first = false) {
    const std::uint32_t parks = t_parks;
    const int r = call(first);
    if (r >= 0 || errno != EINTR || t_parks == parks) return r;
  }
}

int poll_from(const void* caller, struct pollfd* fds, nfds_t count, int timeout_ms) {
  if (t_slot < 0) return real().poll(fds, count, timeout_ms);
  const std::int64_t deadline = now_ns() + std::int64_t{timeout_ms} * 1000000;
  return go_on_after_parks(caller, [&](bool first) {
    return real().poll(fds, count, first || timeout_ms <= 0 ? timeout_ms : left_ms(deadline));
  });
}

int ppoll_from(const void* caller, struct pollfd* fds, nfds_t count, const struct timespec* timeout,
               const sigset_t* mask) {
  if (t_slot < 0) return real().ppoll(fds, count, timeout, mask);
  const std::int64_t deadline = timeout ? now_ns() + timeout->tv_sec * 1000000000 + timeout->tv_nsec : 0;
  return go_on_after_parks(caller, [&](bool first) {
    if (!timeout) return real().ppoll(fds, count, nullptr, mask);
    const timespec left = first ? *timeout : left_until(deadline);
    return real().ppoll(fds, count, &left, mask);
  });
}

// The fortified entry points' check, as glibc makes it: more entries than the array holds ends
// the process (glibc's __chk_fail, "buffer overflow detected").
void check_entries(nfds_t count, std::size_t array_bytes) {
  if (array_bytes / sizeof(struct pollfd) < count) __chk_fail();
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int poll(struct pollfd* fds, nfds_t count, int timeout_ms) {
  return poll_from(__builtin_return_address(0), fds, count, timeout_ms);
}
YK_C_API int __poll_chk(struct pollfd* fds, nfds_t count, int timeout_ms, std::size_t array_bytes) {
  check_entries(count, array_bytes);
  return poll_from(__builtin_return_address(0), fds, count, timeout_ms);
}
YK_C_API int ppoll(struct pollfd* fds, nfds_t count, const struct timespec* timeout, const sigset_t* mask) {
  return ppoll_from(__builtin_return_address(0), fds, count, timeout, mask);
}
YK_C_API int __ppoll_chk(struct pollfd* fds, nfds_t count, const struct timespec* timeout, const sigset_t* mask,
                         std::size_t array_bytes) {
  check_entries(count, array_bytes);
  return ppoll_from(__builtin_return_address(0), fds, count, timeout, mask);
}
// Linux writes what is left into `timeout`; the sets are unchanged when it fails.
YK_C_API int select(int count, fd_set* read, fd_set* write, fd_set* error, struct timeval* timeout) {
  if (t_slot < 0) return real().select(count, read, write, error, timeout);
  return go_on_after_parks(__builtin_return_address(0),
                           [&](bool) { return real().select(count, read, write, error, timeout); });
}
YK_C_API int pselect(int count, fd_set* read, fd_set* write, fd_set* error, const struct timespec* timeout,
                     const sigset_t* mask) {
  if (t_slot < 0) return real().pselect(count, read, write, error, timeout, mask);
  const std::int64_t deadline = timeout ? now_ns() + timeout->tv_sec * 1000000000 + timeout->tv_nsec : 0;
  return go_on_after_parks(__builtin_return_address(0), [&](bool first) {
    if (!timeout) return real().pselect(count, read, write, error, nullptr, mask);
    const timespec left = first ? *timeout : left_until(deadline);
    return real().pselect(count, read, write, error, &left, mask);
  });
}
YK_C_API int epoll_wait(int epoll, struct epoll_event* events, int most, int timeout_ms) {
  if (t_slot < 0) return real().epoll_wait(epoll, events, most, timeout_ms);
  const std::int64_t deadline = now_ns() + std::int64_t{timeout_ms} * 1000000;
  return go_on_after_parks(__builtin_return_address(0), [&](bool first) {
    return real().epoll_wait(epoll, events, most, first || timeout_ms <= 0 ? timeout_ms : left_ms(deadline));
  });
}
YK_C_API int epoll_pwait(int epoll, struct epoll_event* events, int most, int timeout_ms, const sigset_t* mask) {
  if (t_slot < 0) return real().epoll_pwait(epoll, events, most, timeout_ms, mask);
  const std::int64_t deadline = now_ns() + std::int64_t{timeout_ms} * 1000000;
  return go_on_after_parks(__builtin_return_address(0), [&](bool first) {
    return real().epoll_pwait(epoll, events, most, first || timeout_ms <= 0 ? timeout_ms : left_ms(deadline), mask);
  });
}
// They end only when a handler ran: the park's handler is not one the application waits for.
YK_C_API int pause() {
  if (t_slot < 0) return real().pause();
  return go_on_after_parks(__builtin_return_address(0), [](bool) { return real().pause(); });
}
YK_C_API int sigsuspend(const sigset_t* mask) {
  if (t_slot < 0) return real().sigsuspend(mask);
  return go_on_after_parks(__builtin_return_address(0), [&](bool) { return real().sigsuspend(mask); });
}
