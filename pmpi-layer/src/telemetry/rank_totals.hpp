// Sums over the rank's channel table and call counters (for `yadokari status` and stats).
#pragma once

#include "pmpi-layer/src/core/channel_table.hpp"

#include <cstdint>

namespace yadokari::shim {

struct RankTotals {
  std::uint64_t calls = 0, messages_sent = 0, bytes_sent = 0, messages_received = 0, bytes_received = 0;
};

// Safe to call from the control thread: reads counters only (communicator records are not
// freed while the control thread runs: the table never shrinks its chunks).
RankTotals rank_totals();

// This rank's row of the job's traffic matrix (by logical peer), over every communicator the
// app used, live or freed: the scheduler's input and the drain protocol's sent counts.
TrafficRow traffic_row();

}  // namespace yadokari::shim
