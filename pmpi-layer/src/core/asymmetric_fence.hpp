// A store-then-load handshake between a thread that runs it often and one that runs it rarely,
// where the frequent side pays no memory barrier: the collective gate (every collective) against
// the control thread's look at a cut's start (once per cut), cut/cut_protocol.cpp.
//
// Each side stores its own flag, fences, then loads the other's; whatever the timing, at least one
// of them sees the other's store. A full barrier on both sides does that, but on this VM one costs
// about 5.6 ns — as much as the rest of the collective wrapper. Linux's membarrier() lets the rare
// side pay instead: its MEMBARRIER_CMD_PRIVATE_EXPEDITED makes every running thread of the process
// execute a full barrier before it returns, so the frequent side only needs the compiler not to
// reorder its store and load. Where membarrier is refused (an old kernel, a seccomp profile),
// both sides take a full barrier, as before.
#pragma once

#include <atomic>

namespace yadokari::shim {

// Registers the process for the expedited membarrier, once per process (a restarted process is a
// new one and registers again); before any heavy_fence(). False when the kernel refuses: both
// fences are then full barriers.
bool enable_asymmetric_fence();

// True once enable_asymmetric_fence() succeeded in this process.
inline bool g_asymmetric_fence = false;

// The frequent side, between its store and its load.
inline void light_fence() {
  if (g_asymmetric_fence) [[likely]]
    std::atomic_signal_fence(std::memory_order_seq_cst);
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

// The rare side, between its store and its load.
void heavy_fence();

}  // namespace yadokari::shim
