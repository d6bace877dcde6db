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

// Every instance waiting for this thread among the signals `blocked` holds (but SIGALRM), thread's
// queue first (the order the kernel delivers them), each signal's instances in queue order. Stores
// the first `cap` in `out` and their number in `count`; the process's queues are as before. False
// (errno set) if they could not be read: the kernel's limit of queued signals reached, or another
// thread took one meanwhile.
bool read_waiting_signals(const sigset_t& blocked, siginfo_t* out, std::uint32_t cap, std::uint32_t& count);

// In the restarted process, with the mask already in place: the instances again, in order, to this
// thread (it has them blocked: they wait until the application unblocks them).
void send_waiting_signals(const siginfo_t* signals, std::uint32_t count);

}  // namespace yadokari::memory
