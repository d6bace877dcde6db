#pragma once
// The "plan" phase of an automatic restart: the scheduler's inputs from what the front end
// knows (the cluster's nodes and which are lost, where each rank registered from), and its
// placement turned into what the next launch needs. Pure: no I/O.
#include <string>
#include <vector>

#include "launch/launcher.hpp"
#include "scheduler/placement.hpp"

namespace yadokari::cli {

struct ClusterNode {
  std::string id;        // "n2"
  std::string hostname;  // what ranks report and the launcher is given ("yksim-n2")
  int slots = 0;
  bool alive = true;
  int holder_pid = 0;    // simulated node: the process whose namespaces are the node
};

struct RestartPlan {
  scheduler::Placement placement;
  std::vector<launch::HostSlots> hosts;  // for the launcher, in order
  std::string rank_map;                  // YADOKARI_RANK_MAP
};

// `rank_hosts[L]` is the hostname logical rank L registered from ("" if it never did). Throws
// scheduler::PlacementError when the alive nodes cannot hold the job.
// `traffic`: bytes/messages between the ranks (row-major W x W; empty = unknown), for the comm and
// auto policies.
RestartPlan plan_restart(scheduler::Policy policy, int world_size, const std::vector<ClusterNode>& nodes,
                         const std::vector<std::string>& rank_hosts, double max_oversubscribe,
                         const scheduler::TrafficMatrix& traffic = {});

}  // namespace yadokari::cli
