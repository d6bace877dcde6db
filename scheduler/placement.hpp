#pragma once
// Placement policies: which node hosts each logical rank in the next incarnation of a job.
//
// Pure functions: no I/O, no MPI, no globals, no clock, no randomness. The same inputs give the
// same Placement byte for byte (ties are broken by node name, then by logical rank). The runtime
// gathers the inputs (membership, slots, the traffic matrix from the shim's channel tables,
// per-rank compute times), calls place() and turns the result into a hostfile and
// YADOKARI_RANK_MAP. See scheduler/README.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/placement_error.hpp"

namespace yadokari::scheduler {

// --- Inputs ------------------------------------------------------------------------------------

// Traffic of the last epoch between logical ranks, sparse: rows[from] lists the ranks `from` sent
// to, with what it sent (entries to itself are ignored; two entries for one partner add up). A
// rank's row may be cut to its heaviest partners, so a job of W ranks with k partners each costs
// O(W k) here, never W x W. Empty = not measured; otherwise one row per rank.
struct TrafficEntry {
  int to = 0;
  std::uint64_t bytes = 0;
  std::uint64_t messages = 0;
  bool operator==(const TrafficEntry&) const = default;
};

struct TrafficMatrix {
  std::vector<std::vector<TrafficEntry>> rows;
  bool empty() const { return rows.empty(); }
};

struct Job {
  int world_size = 0;  // W
  // Per logical rank: seconds of computation (outside MPI) per epoch, measured on the node the
  // rank ran on in the current placement. Empty vector, or std::nullopt entries = not measured.
  std::vector<std::optional<double>> compute_seconds;
  TrafficMatrix traffic;
};

struct Node {
  std::string name;  // unique, non-empty; also the host name written to the hostfile
  int slots = 0;     // cores the ranks may use (runtime daemons' cores already subtracted)
  bool alive = true;
  // Relative per-core speed (1 = reference; 2 = computes twice as fast). std::nullopt = not
  // measured: inferred from the compute times of the ranks the node hosted (see README), else 1.
  std::optional<double> speed;
};

// Where the current incarnation runs: entry L is the node name hosting logical rank L. It may
// name dead nodes or nodes missing from the node list (both mean "displaced"); "" = not placed
// yet (first start). An empty vector means no rank is placed yet.
using CurrentPlacement = std::vector<std::string>;

// The cost model of `auto` (defaults: the measurements in docs/platform.md §4, shared memory vs TCP over
// veth between simulated nodes).
struct CostParameters {
  double intra_latency_s = 0.5e-6;     // per message between ranks on one node
  double intra_bandwidth_Bps = 4.0e9;  // bytes per second between ranks on one node
  double inter_latency_s = 15e-6;      // per message between nodes
  double inter_bandwidth_Bps = 1.1e9;  // bytes per second between nodes
  // Extra factor on an oversubscribed node's compute time (busy-polling MPI libraries lose more
  // than the share of a core; docs/platform.md §1: 1.4–2.3× for MG/SP). 1 = fair sharing.
  double oversubscription_penalty = 1.0;
};

struct Options {
  // A node of s slots receives at most floor(s × max_oversubscribe) ranks. 1 = never oversubscribe.
  double max_oversubscribe = 2.0;
  CostParameters cost;
  // `comm` only: how many ranks that could have stayed may still move to cut inter-node traffic,
  // and the share of the predicted time per epoch (Cost::total_s) each such step must save.
  int comm_max_extra_moves = 2;
  double comm_min_gain = 0.05;
  // `comm` and `auto`'s consolidate: jobs of at most this many ranks refine exhaustively (every
  // step takes the best step of the whole job); larger ones look again only next to the last step,
  // which keeps planning under a second at 16,384 ranks with scattered partners
  // (scheduler/README.md, "Cost at scale").
  int comm_exhaustive_ranks = 512;
};

enum class Policy { node, balanced, comm, speed, auto_ };

// "node", "balanced", "comm", "speed", "auto". Throws PlacementError for any other name; `source`
// names where the value came from in the message ("--policy", "YADOKARI_POLICY").
Policy parse_policy(std::string_view name, std::string_view source = "--policy");
std::string_view policy_name(Policy policy);

// --- Output ------------------------------------------------------------------------------------

struct HostSlots {
  std::string host;
  int slots = 0;  // ranks the launcher starts there (may exceed the node's cores if oversubscribed)
  bool operator==(const HostSlots&) const = default;
};

struct Cost {
  bool compute_known = false;  // false: no compute time was measured; compute_s is then 0
  double compute_s = 0;        // max over nodes of the predicted compute time per epoch
  double communication_s = 0;  // all traffic at intra- or inter-node latency and bandwidth
  double total_s = 0;          // compute_s + communication_s
  std::uint64_t inter_node_bytes = 0;
};

struct Placement {
  std::vector<std::string> node_of_rank;  // logical rank -> node name, size W
  // The launcher's hostfile in order; real ranks are given to hosts in this order, `slots` each.
  // Hosts come ordered by the lowest logical rank they host, so a block placement maps identically.
  std::vector<HostSlots> hosts;
  // Real rank i hosts logical rank rank_map[i] (YADOKARI_RANK_MAP); consistent with `hosts`: the
  // first hosts[0].slots entries are the logical ranks placed on hosts[0], ascending, and so on.
  std::vector<int> rank_map;
  std::vector<int> moved;   // logical ranks whose node changed (not counting unplaced ones), ascending
  std::string policy;       // the policy that produced it; for auto, "auto(<candidate>)"
  std::string explanation;  // human-readable, one or more sentences, no trailing newline
  Cost cost;                // the cost model's prediction for this placement
};

// --- Functions ---------------------------------------------------------------------------------

// Computes the next placement. Throws PlacementError (one line, no "yadokari: " prefix: the CLI
// adds it) for inconsistent inputs or when the alive nodes cannot hold W ranks within
// max_oversubscribe.
Placement place(Policy policy, const Job& job, const std::vector<Node>& nodes, const CurrentPlacement& current,
                const Options& options = {});

// The cost model alone, for any rank -> node-name map (used by `auto`, tests and `yadokari plan`).
Cost predict_cost(const Job& job, const std::vector<Node>& nodes, const CurrentPlacement& current,
                  const std::vector<std::string>& node_of_rank, const Options& options = {});

// "2,0,1": the value of YADOKARI_RANK_MAP for a placement.
std::string rank_map_string(const Placement& placement);

// "0-3,5,7,8": sorted, runs of three or more ranks as ranges, so messages stay short for big jobs.
std::string rank_list(std::vector<int> ranks);

}  // namespace yadokari::scheduler
