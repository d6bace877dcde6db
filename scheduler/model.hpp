#pragma once
// Internal: the validated, index-based view of the inputs every policy works on.
#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/placement.hpp"

namespace yadokari::scheduler::detail {

// A rank -> node index assignment; -1 = not placed.
using Assignment = std::vector<int>;

struct Model {
  Model(const Job& job, const std::vector<Node>& nodes, const CurrentPlacement& current, const Options& options);

  const Job& job;
  const std::vector<Node>& nodes;
  const Options& options;
  int world = 0;
  int node_count = 0;
  Assignment current;            // node index hosting each rank now; -1 = none/unknown node
  std::vector<bool> was_placed;  // the current placement named a node (known or not) for the rank
  std::vector<int> capacity;     // floor(slots × max_oversubscribe) if alive, else 0
  std::vector<double> speed;     // resolved relative per-core speed (> 0)
  std::vector<bool> speed_inferred;
  std::vector<double> work;  // per rank: compute seconds at speed 1 (0 if !compute_known)
  bool compute_known = false;
  std::vector<int> by_name;       // node indices sorted by name
  std::vector<int> rank_of_name;  // node index -> position in by_name (for tie-breaking)

  bool alive(int n) const { return nodes[static_cast<std::size_t>(n)].alive; }
  int slots(int n) const { return nodes[static_cast<std::size_t>(n)].slots; }
  const std::string& name(int n) const { return nodes[static_cast<std::size_t>(n)].name; }
  // A rank's partners with the traffic of both directions summed, ascending by rank, no zero
  // entries, no self: the symmetric form of job.traffic that every policy reads (O(entries)).
  struct Partner {
    int rank = 0;
    std::uint64_t bytes = 0;
    std::uint64_t messages = 0;
  };
  std::vector<std::vector<Partner>> partners;  // empty when no traffic was measured
  const std::vector<Partner>& partners_of(int rank) const { return partners[static_cast<std::size_t>(rank)]; }
  // Both directions between a and b (a binary search in a's partners).
  std::uint64_t bytes(int a, int b) const;
  bool has_traffic() const { return !job.traffic.empty(); }

 public:
  // True when a ranks's current node is alive.
  bool survives(int rank) const {
    const int n = current[static_cast<std::size_t>(rank)];
    return n >= 0 && alive(n);
  }
};

// Counts of ranks per node.
std::vector<int> counts_of(const Model& model, const Assignment& assignment);

// Ranks whose node is alive stay; a node holding more ranks than its capacity keeps its lowest
// ranks. Returns the assignment with -1 for every displaced rank.
Assignment survivors(const Model& model);

Cost cost_of(const Model& model, const Assignment& assignment);

// Total bytes between ranks on different nodes (both directions).
std::uint64_t inter_node_bytes(const Model& model, const Assignment& assignment);

// Builds the output: hosts, rank map, moved ranks; checks the invariants (every rank placed on an
// alive node within capacity) and throws std::logic_error if a policy broke one.
Placement finish(const Model& model, const Assignment& assignment, std::string policy, std::string explanation);

// printf-style formatting of one double ("%.3g" etc.).
std::string number(const char* format, double value);

}  // namespace yadokari::scheduler::detail
