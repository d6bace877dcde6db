#pragma once
// What each fake rank says it sent to its partners (ImageWritten's traffic row), by pattern.
#include <cstdint>
#include <vector>

#include "bench/scale/scale_options.hpp"
#include "protocol/rank_messages.hpp"

namespace yadokari::bench::scale {

// What the shim would send: the rank's heaviest partners (at most protocol::kTrafficPartners,
// ascending by rank); empty for TrafficPattern::none.
struct TrafficRow {
  std::vector<protocol::TrafficPartner> partners;
};

// Counters only grow, as the shim's do: `epochs` intervals of the same traffic so far.
TrafficRow traffic_row(const ScaleOptions& options, int rank, std::uint64_t epochs);

}  // namespace yadokari::bench::scale
