// Sums over the rank's channel table and call counters (for `yadokari status` and stats).
#pragma once

#include <cstdint>

namespace yk {

struct RankTotals {
  std::uint64_t calls = 0, messages_sent = 0, bytes_sent = 0, messages_received = 0, bytes_received = 0;
};

// Safe to call from the control thread: reads counters only (communicator records are not
// freed while the control thread runs: the table never shrinks its chunks).
RankTotals rank_totals();

}  // namespace yk
