#pragma once
// The "plan" phase of an automatic restart: the scheduler's inputs from what the front end
// knows (the cluster's nodes and which are lost, where each rank registered from), and its
// placement turned into what the next launch needs. Pure: no I/O.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/rank_messages.hpp"
#include "runtime/launch/launcher.hpp"
#include "scheduler/placement.hpp"

namespace yadokari::frontend {

struct ClusterNode {
  std::string id;        // "n2"
  std::string hostname;  // what ranks report and the launcher is given ("yksim-n2")
  int slots = 0;
  bool alive = true;
  int holder_pid = 0;          // simulated node: the process whose namespaces are the node
  bool draining = false;       // announced as leaving (`yadokari sim drain`): no ranks are placed there
  std::uint64_t drain_id = 0;  // which drain (sim::Node::drain_id)
};

struct RestartPlan {
  scheduler::Placement placement;
  std::vector<launch::HostSlots> hosts;  // for the launcher, in order
  std::string rank_map;                  // YADOKARI_RANK_MAP
};

// By logical rank: the id of the node the plan puts it on ("n2"; "" for a hostname no node has).
std::vector<std::string> node_id_of_rank(const RestartPlan& plan, const std::vector<ClusterNode>& nodes);

// `rank_hosts[L]` is the hostname logical rank L registered from ("" if it never did). Throws
// scheduler::PlacementError when the alive nodes cannot hold the job.
// `traffic`: bytes/messages from each rank to its heaviest partners (sparse rows; empty = unknown),
// for the comm and auto policies. `compute_seconds`: per rank, seconds computed outside MPI per epoch on the host of
// `rank_hosts` (compute_on_current_hosts), for the speed and auto policies; empty = unknown.
RestartPlan plan_restart(scheduler::Policy policy, int world_size, const std::vector<ClusterNode>& nodes,
                         const std::vector<std::string>& rank_hosts, double max_oversubscribe,
                         const scheduler::TrafficMatrix& traffic = {},
                         const std::vector<std::optional<double>>& compute_seconds = {});

// The scheduler's sparse traffic from the rows the ranks reported (control::TrafficCounts::rows).
scheduler::TrafficMatrix traffic_matrix(const std::vector<std::vector<protocol::TrafficPartner>>& rows);

// The scheduler infers node speeds from compute times measured where the ranks are now: a time
// measured on another host (an earlier incarnation's, when this one has not committed yet) is
// dropped (nullopt), as is everything when nothing is left. `seconds`/`measured_on` per rank.
std::vector<std::optional<double>> compute_on_current_hosts(const std::vector<std::optional<double>>& seconds,
                                                            const std::vector<std::string>& measured_on,
                                                            const std::vector<std::string>& rank_hosts);

// One line for the log: the mean compute time per rank on each host, e.g.
// "yksim-n1 0.21 s (ranks 0,1), yksim-n2 0.93 s (ranks 2,3)", then "; not measured: ranks 4,5"
// if some are missing; "" when nothing was measured.
std::string compute_summary(const std::vector<std::optional<double>>& compute_seconds,
                            const std::vector<std::string>& rank_hosts);

}  // namespace yadokari::frontend
