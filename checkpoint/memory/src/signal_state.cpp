// Signal dispositions, the signal mask, the alternate signal stack and the interval timers the
// application sets (process_state.hpp). Handlers live in the executable or in libraries loaded
// before main, at the same addresses after a restart, so a saved struct sigaction is valid in the
// fresh process. Only what the application sets after the restore point is replayed: MPI_Init
// installs its own handlers in the fresh process, and those must stay unless the application
// replaced them later.
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/export.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/next_symbol.hpp"
#include "checkpoint/memory/src/process_state.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/waiting_signals.hpp"

namespace yadokari::memory {
namespace {

struct Real {
  int (*sigaction)(int, const struct sigaction*, struct sigaction*);
  sighandler_t (*signal)(int, sighandler_t);
  sighandler_t (*sysv_signal)(int, sighandler_t);
  sighandler_t (*sigset)(int, sighandler_t);
  int (*sigprocmask)(int, const sigset_t*, sigset_t*);
  int (*pthread_sigmask)(int, const sigset_t*, sigset_t*);
  int (*sigaltstack)(const stack_t*, stack_t*);
  int (*setitimer)(int, const struct itimerval*, struct itimerval*);
  unsigned (*alarm)(unsigned);
  useconds_t (*ualarm)(useconds_t, useconds_t);
} g_real_sig;

constexpr const char* kUnresolved = "cannot resolve libc's signal and timer functions";

__attribute__((constructor(101))) void resolve() {
  if (g_real_sig.alarm) return;
  Real r{};
  resolve_next(r.sigaction, "sigaction", kUnresolved);
  resolve_next(r.signal, "signal", kUnresolved);
  resolve_next(r.sysv_signal, "sysv_signal", kUnresolved);
  resolve_next(r.sigset, "sigset", kUnresolved);
  resolve_next(r.sigprocmask, "sigprocmask", kUnresolved);
  resolve_next(r.pthread_sigmask, "pthread_sigmask", kUnresolved);
  resolve_next(r.sigaltstack, "sigaltstack", kUnresolved);
  resolve_next(r.setitimer, "setitimer", kUnresolved);
  resolve_next(r.alarm, "alarm", kUnresolved);
  resolve_next(r.ualarm, "ualarm", kUnresolved);
  g_real_sig = r;
}

const Real& real() {
  if (!g_real_sig.alarm) resolve();
  return g_real_sig;
}

// The signal's disposition now, as the latest of the application's (an older entry for the same
// signal is dropped: only the last one matters, and the order of the last ones is kept).
void record_action(int sig) {
  SavedAction saved{};
  saved.signal = sig;
  if (real().sigaction(sig, nullptr, &saved.action) != 0) return;
  ProcessStateLocked l;
  ProcessState& s = live_process_state();
  std::uint32_t kept = 0;
  for (std::uint32_t i = 0; i < s.action_count; ++i)
    if (s.actions[i].signal != sig) s.actions[kept++] = s.actions[i];
  s.action_count = kept;
  if (s.action_count == kMaxSignalActions) {
    s.overflow = 1;
    return;
  }
  s.actions[s.action_count++] = saved;
}

void record_mask() {
  ProcessStateLocked l;
  live_process_state().have_mask = 1;
}

void record_timer(int which) {
  if (which < 0 || which > 2) return;
  ProcessStateLocked l;
  live_process_state().have_timer[which] = 1;
}

// Before anything is captured: the waiting signals can be read, and are not more than are carried.
void check_waiting_signals() {
  sigset_t blocked;
  pthread_sigmask(SIG_BLOCK, nullptr, &blocked);
  std::uint32_t count = 0;
  std::uint64_t in_process = 0;
  if (!read_waiting_signals(blocked, nullptr, 0, count, in_process)) {
    refusal_add("the signals waiting for the application thread cannot be read: ", std::strerror(errno));
  } else if (count > kMaxWaitingSignals) {
    char line[160];
    std::snprintf(line, sizeof line, "%u signals wait for the application thread (blocked), more than the %u carried",
                  count, kMaxWaitingSignals);
    refusal_add(line);
  }
}

__attribute__((constructor)) void register_check() { register_refusal_check(check_waiting_signals); }

sighandler_t after_signal(int sig, sighandler_t previous) {
  if (previous != SIG_ERR && records_process_state()) record_action(sig);
  return previous;
}

}  // namespace

// Only signals the application blocked can be waiting at a checkpoint (an unblocked one is taken on
// the way back from the kernel); those are sent again after the restart, to the same thread, and
// wait for the application to unblock them: each instance with its siginfo (a real-time signal
// queued three times with values comes back three times with them), but SIGALRM, which is only
// marked pending (taking it to read its siginfo would re-arm ITIMER_REAL; capture_timers reads
// the timer as it stands). Read whether or not the application set the mask after the restore
// point: a mask set before it is set again by the same code in the restarted process.
bool capture_pending_signals(ProcessState& s) {
  sigemptyset(&s.pending);
  s.waiting_count = 0;
  sigset_t blocked;
  pthread_sigmask(SIG_BLOCK, nullptr, &blocked);
  if (s.have_mask) s.mask = blocked;
  std::uint32_t count = 0;
  if (!read_waiting_signals(blocked, s.waiting, kMaxWaitingSignals, count, s.waiting_in_process) ||
      count > kMaxWaitingSignals) {
    refusal_add("the signals waiting for the application thread changed while they were read");
    return false;
  }
  s.waiting_count = count;
  sigset_t waiting;
  if (s.have_mask && sigpending(&waiting) == 0 && sigismember(&waiting, SIGALRM) == 1 &&
      sigismember(&blocked, SIGALRM) == 1)
    sigaddset(&s.pending, SIGALRM);
  return true;
}

void capture_timers(ProcessState& s) {
  for (int which = 0; which < 3; ++which) {
    if (!s.have_timer[which]) continue;
    struct itimerval& t = s.timers[which];
    getitimer(which, &t);
    // A periodic ITIMER_REAL whose SIGALRM is waiting reads as disarmed: the kernel re-arms it only
    // when the signal is taken. Saved as read, the timer would stay dead after the restart. If the
    // signal is carried (blocked), the next expiry is an interval away; otherwise it was about to
    // be taken and the restart fires at once in its place.
    bool expiry_waiting = !t.it_value.tv_sec && !t.it_value.tv_usec && (t.it_interval.tv_sec || t.it_interval.tv_usec);
    if (!expiry_waiting) continue;
    if (which == ITIMER_REAL && sigismember(&s.pending, SIGALRM) == 1)
      t.it_value = t.it_interval;
    else
      t.it_value.tv_usec = 1;
  }
}

void replay_signal_state(const ProcessState& s) {
  for (std::uint32_t i = 0; i < s.action_count; ++i)
    real().sigaction(s.actions[i].signal, &s.actions[i].action, nullptr);
  if (s.have_altstack) real().sigaltstack(&s.altstack, nullptr);
  if (s.have_mask) real().pthread_sigmask(SIG_SETMASK, &s.mask, nullptr);
  send_waiting_signals(s.waiting, s.waiting_count, s.waiting_in_process);  // blocked: they wait
  if (sigismember(&s.pending, SIGALRM) == 1) pthread_kill(pthread_self(), SIGALRM);
}

void replay_timers(const ProcessState& s) {
  for (int which = 0; which < 3; ++which) {
    const struct itimerval& t = s.timers[which];
    // A one-shot timer that had expired is disarmed: nothing to re-arm.
    if (s.have_timer[which] && (t.it_value.tv_sec || t.it_value.tv_usec)) real().setitimer(which, &t, nullptr);
  }
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  int r = real().sigaction(sig, act, old);
  if (r == 0 && act && records_process_state()) record_action(sig);
  return r;
}

YK_C_API sighandler_t signal(int sig, sighandler_t handler) { return after_signal(sig, real().signal(sig, handler)); }
YK_C_API sighandler_t bsd_signal(int sig, sighandler_t handler) { return signal(sig, handler); }
YK_C_API sighandler_t sysv_signal(int sig, sighandler_t handler) {
  return after_signal(sig, real().sysv_signal(sig, handler));
}
YK_C_API sighandler_t sigset(int sig, sighandler_t handler) {
  sighandler_t r = real().sigset(sig, handler);
  if (r != SIG_ERR && records_process_state()) {
    record_action(sig);
    record_mask();  // sigset(SIG_HOLD) changes the mask
  }
  return r;
}

YK_C_API int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  int r = real().sigprocmask(how, set, old);
  if (r == 0 && set && records_process_state()) record_mask();
  return r;
}

YK_C_API int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  int r = real().pthread_sigmask(how, set, old);
  if (r == 0 && set && records_process_state()) record_mask();
  return r;
}

YK_C_API int sigaltstack(const stack_t* ss, stack_t* old) {
  int r = real().sigaltstack(ss, old);
  if (r == 0 && ss && records_process_state()) {
    ProcessStateLocked l;
    live_process_state().have_altstack = 1;
    live_process_state().altstack = *ss;
  }
  return r;
}

YK_C_API int setitimer(int which, const struct itimerval* value, struct itimerval* old) {
  int r = real().setitimer(which, value, old);
  if (r == 0 && records_process_state()) record_timer(which);
  return r;
}

YK_C_API unsigned alarm(unsigned seconds) {
  unsigned r = real().alarm(seconds);
  if (records_process_state()) record_timer(ITIMER_REAL);
  return r;
}

// glibc's ualarm sets ITIMER_REAL through its internal setitimer, which no interposer sees.
YK_C_API useconds_t ualarm(useconds_t value, useconds_t interval) {
  useconds_t r = real().ualarm(value, interval);
  if (records_process_state()) record_timer(ITIMER_REAL);
  return r;
}
