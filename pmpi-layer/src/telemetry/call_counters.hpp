// Telemetry's globals: how often each MPI function was called (stats, `yadokari status`, carried
// in images) and which call the application thread is in right now (read by the compute sampler
// and `yadokari status`). Written by every wrapper (shim/call_scope.hpp); the array is indexed by
// the generated function id.
#pragma once

#include "core/counter.hpp"
#include "function_ids.hpp"

#include <atomic>
#include <cstddef>

namespace yk {

inline constexpr std::size_t kFunctionCount = static_cast<std::size_t>(Fn::count_);
inline Counter g_call_counts[kFunctionCount];
inline std::atomic<Fn> g_current_call{Fn::none_};

inline const char* function_name(Fn f) {
  return f == Fn::none_ ? "" : kFunctionNames[static_cast<std::size_t>(f)];
}

}  // namespace yk
