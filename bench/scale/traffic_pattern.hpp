#pragma once
// What each fake rank says it sent to every other rank (ImageWritten's traffic row), by pattern.
#include <cstdint>
#include <vector>

#include "bench/scale/scale_options.hpp"

namespace yadokari::bench::scale {

struct TrafficRow {
  std::vector<std::uint64_t> bytes_to;  // size W, or empty for TrafficPattern::none
  std::vector<std::uint64_t> messages_to;
};

// Counters only grow, as the shim's do: `epochs` intervals of the same traffic so far.
TrafficRow traffic_row(const ScaleOptions& options, int rank, std::uint64_t epochs);

}  // namespace yadokari::bench::scale
