// Telemetry's globals: how often each MPI function was called (stats, `yadokari status`, carried
// in images) and which call the application thread is in right now (read by the compute sampler
// and `yadokari status`). Written by every wrapper (shim/call_scope.hpp); the array is indexed by
// the generated function id.
#pragma once

#include "pmpi-layer/src/core/counter.hpp"
#include "function_ids.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace yadokari::shim {

inline constexpr std::size_t kFunctionCount = static_cast<std::size_t>(Fn::count_);
inline Counter g_call_counts[kFunctionCount];
inline std::atomic<Fn> g_current_call{Fn::none_};

// The counts as a checkpoint image carries them (cut/shim_state.cpp), one per function id, and
// put back (the size was checked against kFunctionCount first).
std::vector<std::uint64_t> save_call_counts();
void load_call_counts(const std::vector<std::uint64_t>& counts);

inline const char* function_name(Fn f) { return f == Fn::none_ ? "" : kFunctionNames[static_cast<std::size_t>(f)]; }

}  // namespace yadokari::shim
