// Counters written by the rank's MPI-calling thread and read by the control-plane thread
// (`yadokari status`). Relaxed atomics: a plain load/store on x86, no lock prefix, so the
// wrappers' fast path stays cheap. Under MPI_THREAD_MULTIPLE several threads may write, and
// then (and only then) we pay for an atomic add.
#pragma once

#include <atomic>
#include <cstdint>

// For the few helpers every wrapper runs: inlined even where GCC's -O2 heuristics would not.
#define YK_HOT __attribute__((always_inline)) inline

namespace yk {

inline bool g_many_writers = false;  // set once, when MPI_THREAD_MULTIPLE is granted

class Counter {
 public:
  Counter() = default;
  Counter(const Counter& o) : v_(o.get()) {}
  Counter& operator=(const Counter& o) {
    v_.store(o.get(), std::memory_order_relaxed);
    return *this;
  }

  YK_HOT void add(std::uint64_t n) {
    if (g_many_writers)
      v_.fetch_add(n, std::memory_order_relaxed);
    else
      v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  std::uint64_t get() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> v_{0};
};

}  // namespace yk
