// Reading the signals that wait for the application thread without losing them
// (waiting_signals.hpp). Each waiting signal is taken with sigtimedwait and queued again with
// rt_tgsigqueueinfo / rt_sigqueueinfo, which keep its siginfo. A real-time signal can wait many
// times, in the thread's queue and in the process's; to know where each queue ends, a marker is
// queued behind it first (its value is the address of a static of this file, which no application
// signal carries). The kernel hands out the thread's queue before the process's, so instances of
// the thread's queue are held aside until the process's have gone round, then queued again.
#include "checkpoint/memory/src/waiting_signals.hpp"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "checkpoint/memory/src/raw_syscalls.hpp"
#include "checkpoint/memory/src/thread_signal_sets.hpp"

namespace yadokari::memory {
namespace {

char g_thread_end, g_process_end;  // the markers' values

// The thread's and the process's waiting signals, from /proc/thread-self/status (SigPnd, ShdPnd).
struct Queues {
  std::uint64_t thread = 0, process = 0;  // bit sig-1
};

bool read_queues(Queues& q) {
  ThreadSignalSets sets;
  if (!read_thread_signal_sets("/proc/thread-self/status", sets)) return false;
  q.thread = sets.pending;
  q.process = sets.shared_pending;
  return true;
}

bool waits_in(std::uint64_t queue, int sig) { return sig <= 64 && ((queue >> (sig - 1)) & 1); }

siginfo_t marker(int sig, char* which) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  info.si_signo = sig;
  info.si_code = SI_QUEUE;
  info.si_pid = getpid();
  info.si_uid = getuid();
  info.si_value.sival_ptr = which;
  return info;
}

bool is_marker(const siginfo_t& info, const char* which) {
  return info.si_code == SI_QUEUE && info.si_pid == getpid() && info.si_value.sival_ptr == which;
}

bool queue_to_thread(const siginfo_t& info) {
  siginfo_t copy = info;  // the kernel reads it; keep the caller's const
  return real_syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), info.si_signo, reinterpret_cast<long>(&copy)) == 0;
}

// Into the process's queue. The kernel lets only the main thread queue a siginfo that looks like
// kill()'s (si_code >= 0) there; elsewhere it goes to this thread's queue, which delivers it to the
// same thread, only earlier among its instances.
bool queue_to_process(const siginfo_t& info, bool strictly) {
  siginfo_t copy = info;
  if (real_syscall(SYS_rt_sigqueueinfo, getpid(), info.si_signo, reinterpret_cast<long>(&copy)) == 0) return true;
  return !strictly && queue_to_thread(info);
}

bool take(int sig, siginfo_t& info) {
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  const struct timespec now {};
  return sigtimedwait(&one, &info, &now) == sig;
}

// Where the thread's instances are held while the process's go round: as many as the kernel lets
// this user queue, mapped only when needed and released before the capture goes on.
struct Held {
  siginfo_t* items = nullptr;
  std::size_t count = 0, capacity = 0, bytes = 0;
  bool reserve() {
    struct rlimit limit {};
    std::size_t most = 1u << 20;
    if (getrlimit(RLIMIT_SIGPENDING, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < most)
      most = limit.rlim_cur;
    bytes = (most + 1) * sizeof(siginfo_t);
    const long p = real_syscall(SYS_mmap, 0, static_cast<long>(bytes), PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == -1) return false;
    items = reinterpret_cast<siginfo_t*>(p);
    capacity = most + 1;
    return true;
  }
  ~Held() {
    if (items) real_syscall(SYS_munmap, reinterpret_cast<long>(items), static_cast<long>(bytes));
  }
};

struct Reader {
  siginfo_t* out;
  std::uint32_t cap, count = 0;
  std::uint64_t in_process = 0;
  void note(const siginfo_t& info, bool from_process) {
    if (count < cap) out[count] = info;
    if (from_process && count < 64) in_process |= std::uint64_t{1} << count;
    ++count;
  }

  // A standard signal waits at most once in each queue.
  bool standard(int sig, bool in_thread, bool in_process) {
    siginfo_t first{}, second{};
    if (in_thread && !take(sig, first)) return false;
    if (in_process && !take(sig, second)) {
      if (in_thread) queue_to_thread(first);
      return false;
    }
    if (in_thread) note(first, false);
    if (in_process) note(second, true);
    return (!in_thread || queue_to_thread(first)) && (!in_process || queue_to_process(second, false));
  }

  // Markers end both queues; the process's is queued first, so a failure there changes nothing.
  // If the thread's marker cannot be queued (the kernel's limit), the two queues cannot be told
  // apart: every instance goes back into the thread's queue (delivered to the same thread, in the
  // same order) and the checkpoint is refused.
  bool real_time(int sig, bool in_thread, bool in_process) {
    Held held;
    if (in_process && !held.reserve()) return false;
    siginfo_t end_of_thread = marker(sig, &g_thread_end), end_of_process = marker(sig, &g_process_end);
    if (in_process && !queue_to_process(end_of_process, true)) return false;
    const bool thread_marked = in_thread && queue_to_thread(end_of_thread);
    if (in_thread && !thread_marked && !in_process) return false;
    const bool merged = in_thread && !thread_marked;
    bool ok = true, thread_done = !thread_marked, process_done = !in_process;
    while (ok && (!thread_done || !process_done)) {
      siginfo_t info;
      if (!take(sig, info)) {
        ok = false;  // another thread took one meanwhile: what is held still goes back
      } else if (is_marker(info, &g_thread_end)) {
        thread_done = true;
      } else if (is_marker(info, &g_process_end)) {
        process_done = true;
      } else if (merged || (!thread_done && in_process)) {
        note(info, false);
        if (held.count < held.capacity)
          held.items[held.count++] = info;
        else
          ok = false;
      } else {
        note(info, thread_done);
        ok = thread_done ? queue_to_process(info, false) : queue_to_thread(info);
      }
    }
    for (std::size_t i = 0; i < held.count; ++i) ok = queue_to_thread(held.items[i]) && ok;
    if (ok && !merged) return true;
    if (merged || !errno) errno = EAGAIN;
    return false;
  }
};

}  // namespace

bool read_waiting_signals(const sigset_t& blocked, siginfo_t* out, std::uint32_t cap, std::uint32_t& count,
                          std::uint64_t& in_process) {
  count = 0;
  in_process = 0;
  Queues q;
  if (!read_queues(q)) return false;
  Reader reader{out, cap};
  for (int sig = 1; sig < NSIG && sig <= 64; ++sig) {
    if (sig == SIGALRM || sigismember(&blocked, sig) != 1) continue;
    const bool in_thread = waits_in(q.thread, sig), in_process = waits_in(q.process, sig);
    if (!in_thread && !in_process) continue;
    const bool ok =
        sig >= SIGRTMIN ? reader.real_time(sig, in_thread, in_process) : reader.standard(sig, in_thread, in_process);
    if (!ok) return false;
  }
  count = reader.count;
  in_process = reader.in_process;
  return true;
}

void send_waiting_signals(const siginfo_t* signals, std::uint32_t count, std::uint64_t in_process) {
  for (std::uint32_t i = 0; i < count; ++i) {
    if (i < 64 && ((in_process >> i) & 1))
      queue_to_process(signals[i], false);
    else
      queue_to_thread(signals[i]);
  }
}

}  // namespace yadokari::memory
