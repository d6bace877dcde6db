// Counters written by the rank's MPI-calling thread and read by the control-plane thread
// (`yadokari status`). Relaxed atomics: a plain load/store on x86, no lock prefix, so the
// wrappers' fast path stays cheap. Under MPI_THREAD_MULTIPLE several threads may write, and
// then (and only then) we pay for an atomic add.
#pragma once

#include <atomic>
#include <cstdint>

// For the few helpers every wrapper runs: inlined even where GCC's -O2 heuristics would not.
#define YK_HOT __attribute__((always_inline)) inline

namespace yadokari::shim {

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
    // [[unlikely]]: the single-writer add is laid out as the straight-line path.
    if (g_many_writers) [[unlikely]]
      v_.fetch_add(n, std::memory_order_relaxed);
    else
      v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  std::uint64_t get() const { return v_.load(std::memory_order_relaxed); }
  // For callers that already know there is one writer (the wrappers' fast path, call_scope.hpp).
  YK_HOT void add_single_writer(std::uint64_t n) {
    v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  // The two counters of one event (a message and its bytes) under a single test of
  // g_many_writers: the channel hooks run on the receive path right after the library returns.
  // `single_writer` (a constant at the call site): the caller already knows there is one writer.
  YK_HOT static void add_pair(Counter& a, std::uint64_t na, Counter& b, std::uint64_t nb, bool single_writer = false) {
    if (!single_writer && g_many_writers) [[unlikely]] {
      a.v_.fetch_add(na, std::memory_order_relaxed);
      b.v_.fetch_add(nb, std::memory_order_relaxed);
    } else {
      a.v_.store(a.v_.load(std::memory_order_relaxed) + na, std::memory_order_relaxed);
      b.v_.store(b.v_.load(std::memory_order_relaxed) + nb, std::memory_order_relaxed);
    }
  }

 private:
  std::atomic<std::uint64_t> v_{0};
};

}  // namespace yadokari::shim
