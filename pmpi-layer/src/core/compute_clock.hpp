// Time a rank spends computing (outside MPI), estimated from periodic looks at whether its
// application thread is inside an MPI call. The wrappers already publish the current call
// (yadokari::shim::g_current_call), so the measurement adds nothing to the MPI fast path; a background
// sampler (mpi/compute_sampler.cpp) feeds this clock. MPI-free and clock-free (the caller passes
// the time), so it is unit-tested on its own.
#pragma once

#include <atomic>
#include <cstdint>

namespace yadokari::shim {

class ComputeClock {
 public:
  // One look at `now_ns` (monotonic nanoseconds): was the rank outside MPI? The span since the
  // previous look counts fully when both looks saw the rank outside MPI, half when they differ
  // (it crossed a call boundary somewhere in between), not at all when both saw it inside. So a
  // late look (the sampler descheduled, a throttled node) still adds the right wall time. The
  // first look only starts the clock. One writer thread only.
  void observe(std::int64_t now_ns, bool outside_mpi) noexcept {
    if (started_ && now_ns > last_ns_) {
      const std::int64_t halves = static_cast<std::int64_t>(outside_mpi) + static_cast<std::int64_t>(last_outside_);
      if (halves > 0)
        total_ns_.store(total_ns_.load(std::memory_order_relaxed) + (now_ns - last_ns_) * halves / 2,
                        std::memory_order_relaxed);
    }
    started_ = true;
    last_ns_ = now_ns;
    last_outside_ = outside_mpi;
  }

  // Seconds counted so far; safe from any thread.
  double seconds() const noexcept { return static_cast<double>(total_ns_.load(std::memory_order_relaxed)) * 1e-9; }

 private:
  bool started_ = false;
  bool last_outside_ = false;
  std::int64_t last_ns_ = 0;
  std::atomic<std::int64_t> total_ns_{0};
};

}  // namespace yadokari::shim
