// The scope of every MPI call: it counts the call and publishes "which MPI call is this rank in
// right now" (telemetry/call_counters.hpp; shown by `yadokari status`), and is a boundary of the
// consistent cut. One store on entry and one on exit. The fast path's flag word: slow_path.hpp.
#pragma once

#include "pmpi-layer/src/cut/cut_protocol.hpp"  // cut_boundary, g_cut_requested
#include "checkpoint/memory/library_scope.hpp"
#include "pmpi-layer/src/shim/slow_path.hpp"           // g_slow_path
#include "pmpi-layer/src/telemetry/call_counters.hpp"  // g_call_counts, g_current_call

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace yadokari::shim {

class CallScope {
 public:
  YK_HOT explicit CallScope(Fn f) : outer_(g_current_call.load(std::memory_order_relaxed)) {
    // Allocations inside MPI calls go to glibc, never into the application's arena
    // (docs/architecture.md, pitfall 7).
    yadokari::memory::enter_library();
    g_call_counts[static_cast<std::size_t>(f)].add(1);
    // [[likely]]: the outermost call is the common case; without the hint GCC lays it out as a
    // jump away and back on every call.
    if (outer_ == Fn::none_) [[likely]] {
      g_current_call.store(f, std::memory_order_relaxed);
      // The entry of an MPI call is a boundary of the consistent cut: nothing translated yet.
      if (g_cut_requested.load(std::memory_order_relaxed)) [[unlikely]]
        cut_boundary();
    }
  }
  YK_HOT ~CallScope() {
    if (outer_ == Fn::none_) [[likely]]
      g_current_call.store(Fn::none_, std::memory_order_relaxed);
    yadokari::memory::leave_library();
  }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  Fn outer_;
};

// True when a wrapper may take its fast path: no special state, and not nested inside another MPI
// call of this thread (a user op or error handler calling MPI; nested calls are no boundaries).
YK_HOT bool fast_path_open() {
  return g_current_call.load(std::memory_order_relaxed) == Fn::none_ &&
         g_slow_path.load(std::memory_order_relaxed) == 0;
}

// CallScope for the fast path: the outer call (fast_path_open() checked it), no cut request and a
// single writer are known, so nothing is tested and nothing survives the library call but the
// caller's own values. Same effects as CallScope (count, current call, library bracket). The
// bracket is two thread-local increments; only the memory layer's allocator reads it, but
// bracketing always keeps calls with checkpointing on (the layer on) on this path.
class FastCallScope {
 public:
  YK_HOT explicit FastCallScope(Fn f) {
    yadokari::memory::enter_library();
    g_call_counts[static_cast<std::size_t>(f)].add_single_writer(1);
    g_current_call.store(f, std::memory_order_relaxed);
  }
  YK_HOT ~FastCallScope() {
    g_current_call.store(Fn::none_, std::memory_order_relaxed);
    yadokari::memory::leave_library();
  }
  FastCallScope(const FastCallScope&) = delete;
  FastCallScope& operator=(const FastCallScope&) = delete;
};

}  // namespace yadokari::shim
