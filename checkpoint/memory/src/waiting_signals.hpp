#pragma once
// Signals the application thread had blocked and that wait at a checkpoint, each instance with its
// siginfo (checkpoint/memory/README.md, "The application's process state"). A real-time signal
// queued three times with values (sigqueue) must come back three times with those values; so must
// a standard signal's sender and value. The kernel offers no way to read a waiting signal without
// taking it, so the capture takes every instance and queues it again at once, in the same order
// and into the same queue (the thread's or the process's), leaving the running process as it was.
// SIGALRM is left alone: taking it re-arms ITIMER_REAL, which the capture reads as it stands
// (signal_state.cpp sends it again with pthread_kill).
#include <signal.h>

#include <cstdint>

namespace yadokari::memory {

inline constexpr std::uint32_t kMaxWaitingSignals = 64;  // instances carried; more refuse the checkpoint
static_assert(kMaxWaitingSignals <= 64, "one bit per instance says which queue it waited in");

// Every instance waiting for this thread among the signals `blocked` holds (but SIGALRM), thread's
// queue first (the order the kernel delivers them), each signal's instances in queue order. Stores
// the first `cap` in `out` and their number in `count`, and in bit i of `in_process` whether
// out[i] waited in the process's queue; the queues are as before. False (errno set) if they could
// not be read: the kernel's limit of queued signals reached, or another thread took one meanwhile.
bool read_waiting_signals(const sigset_t& blocked, siginfo_t* out, std::uint32_t cap, std::uint32_t& count,
                          std::uint64_t& in_process);

// In the restarted process, with the mask already in place, on the main thread: the instances
// again, in order, each into the queue it waited in (the thread has them blocked: they wait until
// the application unblocks them, or another thread that does not block them takes a process's one).
void send_waiting_signals(const siginfo_t* signals, std::uint32_t count, std::uint64_t in_process);

}  // namespace yadokari::memory
