#pragma once
// Helpers shared by the scheduler tests.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "scheduler/placement.hpp"

namespace yadokari::scheduler::test {

inline Node node(std::string name, int slots, bool alive = true, std::optional<double> speed = std::nullopt) {
  return Node{std::move(name), slots, alive, speed};
}

inline Job uniform_job(int world, std::optional<double> compute = std::nullopt) {
  Job job;
  job.world_size = world;
  if (compute) job.compute_seconds.assign(static_cast<std::size_t>(world), compute);
  return job;
}

// Sets what `from` sent to `to` (replacing an earlier value), in the sparse rows.
inline void set_traffic(Job& job, int from, int to, std::uint64_t bytes, std::uint64_t messages = 1) {
  job.traffic.rows.resize(static_cast<std::size_t>(job.world_size));
  auto& row = job.traffic.rows[static_cast<std::size_t>(from)];
  const auto it = std::find_if(row.begin(), row.end(), [&](const TrafficEntry& e) { return e.to == to; });
  if (it != row.end())
    *it = {to, bytes, messages};
  else
    row.push_back({to, bytes, messages});
}

inline void all_to_all(Job& job, std::uint64_t bytes, std::uint64_t messages) {
  for (int a = 0; a < job.world_size; ++a)
    for (int b = 0; b < job.world_size; ++b)
      if (a != b) set_traffic(job, a, b, bytes, messages);
}

inline std::map<std::string, int> counts(const Placement& p) {
  std::map<std::string, int> c;
  for (const auto& n : p.node_of_rank) ++c[n];
  return c;
}

// Everything a launcher relies on: the host list and the rank map describe node_of_rank, every
// node is alive and within its allowed oversubscription, moved lists exactly the changed ranks.
inline void check_consistent(const Placement& p, const Job& job, const std::vector<Node>& nodes,
                             const CurrentPlacement& current, double max_oversubscribe) {
  const auto w = static_cast<std::size_t>(job.world_size);
  REQUIRE(p.node_of_rank.size() == w);
  REQUIRE(p.rank_map.size() == w);
  std::vector<int> sorted = p.rank_map;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < w; ++i) REQUIRE(sorted[i] == static_cast<int>(i));
  std::size_t real = 0;
  std::vector<std::string> seen_hosts;
  for (const auto& h : p.hosts) {
    REQUIRE(h.slots > 0);
    REQUIRE(std::find(seen_hosts.begin(), seen_hosts.end(), h.host) == seen_hosts.end());
    seen_hosts.push_back(h.host);
    for (int k = 0; k < h.slots; ++k, ++real) {
      REQUIRE(real < w);
      CHECK(p.node_of_rank[static_cast<std::size_t>(p.rank_map[real])] == h.host);
    }
  }
  REQUIRE(real == w);
  for (const auto& [name, count] : counts(p)) {
    const auto it = std::find_if(nodes.begin(), nodes.end(), [&](const Node& n) { return n.name == name; });
    REQUIRE(it != nodes.end());
    CHECK(it->alive);
    CHECK(count <= static_cast<int>(std::floor(it->slots * max_oversubscribe + 1e-9)));
  }
  std::vector<int> moved;
  for (std::size_t r = 0; r < current.size(); ++r)
    if (!current[r].empty() && current[r] != p.node_of_rank[r]) moved.push_back(static_cast<int>(r));
  CHECK(p.moved == moved);
  CHECK_FALSE(p.explanation.empty());
}

}  // namespace yadokari::scheduler::test
