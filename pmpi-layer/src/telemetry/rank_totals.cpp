#include "pmpi-layer/src/telemetry/rank_totals.hpp"

#include "pmpi-layer/src/objects/world.hpp"
#include "pmpi-layer/src/objects/virtual_handles.hpp"
#include "pmpi-layer/src/telemetry/call_counters.hpp"

namespace yadokari::shim {

namespace {

void add(RankTotals& t, const CommChannels& ch) {
  for (std::size_t p = 0; p < ch.peers(); ++p) {
    const Channel& c = ch.channel(p);
    t.messages_sent += c.messages_sent.get();
    t.bytes_sent += c.bytes_sent.get();
    t.messages_received += c.messages_received.get();
    t.bytes_received += c.bytes_received.get();
  }
}

}  // namespace

RankTotals rank_totals() {
  RankTotals t;
  for (const Counter& c : g_call_counts) t.calls += c.get();
  registry<CommK>().table.for_each([&](std::uint32_t, CommK::entry& e) { add(t, e.record.channels); });
  add(t, g_retired_channels.as_world_view());
  return t;
}

TrafficRow traffic_row() {
  TrafficRow row = make_traffic_row(static_cast<std::size_t>(identity().world_size));
  registry<CommK>().table.for_each([&](std::uint32_t, CommK::entry& e) { accumulate(e.record.channels, row); });
  accumulate(g_retired_channels.as_world_view(), row);
  return row;
}

}  // namespace yadokari::shim
