#include "pmpi-layer/src/telemetry/call_counters.hpp"

namespace yadokari::shim {

std::vector<std::uint64_t> save_call_counts() {
  std::vector<std::uint64_t> counts;
  for (const Counter& c : g_call_counts) counts.push_back(c.get());
  return counts;
}

void load_call_counts(const std::vector<std::uint64_t>& counts) {
  for (std::size_t i = 0; i < kFunctionCount; ++i) {
    Counter c;
    c.add(counts[i]);
    g_call_counts[i] = c;
  }
}

}  // namespace yadokari::shim
