#include "bench/scale/traffic_pattern.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace yadokari::bench::scale {
namespace {

// A fixed pseudo-random sequence per rank: the same partners in every run.
std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

TrafficRow traffic_row(const ScaleOptions& options, int rank, std::uint64_t epochs) {
  const int world = options.ranks;
  TrafficRow row;
  std::map<int, protocol::TrafficPartner> sent;
  auto add = [&](int to, std::uint64_t bytes, std::uint64_t messages) {
    if (to == rank) return;
    auto& partner = sent[to];
    partner.to = to;
    partner.bytes += bytes * epochs;
    partner.messages += messages * epochs;
  };
  switch (options.traffic) {
    case TrafficPattern::none:
      break;
    case TrafficPattern::halo: {
      // A 2-D periodic grid of side ~sqrt(W): four neighbours, 1 MiB each per epoch.
      const int side = std::max(1, static_cast<int>(std::sqrt(static_cast<double>(world))));
      for (const int offset : {1, -1, side, -side}) add(((rank + offset) % world + world) % world, 1 << 20, 100);
      break;
    }
    case TrafficPattern::all_to_all:
      for (int to = 0; to < world; ++to) add(to, 4096, 10);
      break;
    case TrafficPattern::sparse: {
      // Seed 0 gives the partners of the runs before --seed existed.
      std::uint64_t state = (options.seed << 32) + static_cast<std::uint64_t>(rank) + 1;
      for (int i = 0; i < options.sparse_partners; ++i)
        add(static_cast<int>(splitmix(state) % static_cast<std::uint64_t>(world)), 64 << 10, 20);
      break;
    }
  }
  // The shim's cut (pmpi-layer/src/telemetry/heaviest_partners.hpp): most bytes, then most
  // messages, then the lower rank; sent ascending by rank.
  for (const auto& [to, partner] : sent) row.partners.push_back(partner);
  const auto heavier = [](const protocol::TrafficPartner& x, const protocol::TrafficPartner& y) {
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    if (x.messages != y.messages) return x.messages > y.messages;
    return x.to < y.to;
  };
  if (row.partners.size() > protocol::kTrafficPartners) {
    std::sort(row.partners.begin(), row.partners.end(), heavier);
    row.partners.resize(protocol::kTrafficPartners);
    std::sort(row.partners.begin(), row.partners.end(), [](const auto& x, const auto& y) { return x.to < y.to; });
  }
  return row;
}

}  // namespace yadokari::bench::scale
