// The traffic row ImageWritten carries: a rank's heaviest partners, not a counter per rank of the
// job, so that the front end holds O(ranks) counters at any size (docs/formats/protocol.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "pmpi-layer/src/core/channel_table.hpp"
#include "protocol/rank_messages.hpp"

namespace yadokari::shim {

// The `limit` peers this rank sent the most bytes to (then the most messages, then the lower
// rank), ascending by rank; peers it sent nothing to are left out.
inline std::vector<protocol::TrafficPartner> heaviest_partners(const TrafficRow& row, std::size_t limit) {
  std::vector<protocol::TrafficPartner> partners;
  for (std::size_t to = 0; to < row.bytes_sent.size() && to < row.messages_sent.size(); ++to)
    if (row.bytes_sent[to] > 0 || row.messages_sent[to] > 0)
      partners.push_back({static_cast<std::int32_t>(to), row.bytes_sent[to], row.messages_sent[to]});
  const auto heavier = [](const protocol::TrafficPartner& x, const protocol::TrafficPartner& y) {
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    if (x.messages != y.messages) return x.messages > y.messages;
    return x.to < y.to;
  };
  if (partners.size() > limit) {
    std::nth_element(partners.begin(), partners.begin() + static_cast<std::ptrdiff_t>(limit), partners.end(), heavier);
    partners.resize(limit);
  }
  std::sort(partners.begin(), partners.end(),
            [](const protocol::TrafficPartner& x, const protocol::TrafficPartner& y) { return x.to < y.to; });
  return partners;
}

}  // namespace yadokari::shim
