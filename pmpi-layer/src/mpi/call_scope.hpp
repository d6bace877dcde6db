// Per-function call counters and "which MPI call is this rank in right now" (shown by
// `yadokari status`, and later used to decide where a checkpoint may start). One store on
// entry and one on exit; the counter array is indexed by the generated function id.
#pragma once

#include "memory/library_scope.hpp"
#include "core/counter.hpp"
#include "function_ids.hpp"
#include "mpi/cut_protocol.hpp"

#include <atomic>
#include <cstddef>

namespace yk {

inline constexpr std::size_t kFunctionCount = static_cast<std::size_t>(Fn::count_);
inline Counter g_call_counts[kFunctionCount];
inline std::atomic<Fn> g_current_call{Fn::none_};

class CallScope {
 public:
  YK_HOT explicit CallScope(Fn f) : outer_(g_current_call.load(std::memory_order_relaxed)) {
    // Allocations inside MPI calls go to glibc, never into the application's arena (pitfall 7).
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
    if (outer_ == Fn::none_) [[likely]] g_current_call.store(Fn::none_, std::memory_order_relaxed);
    yadokari::memory::leave_library();
  }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  Fn outer_;
};

inline const char* function_name(Fn f) {
  return f == Fn::none_ ? "" : kFunctionNames[static_cast<std::size_t>(f)];
}

}  // namespace yk
