#pragma once
// `yadokari sim up/down/kill` and the checks around them.
#include <string>

#include "runtime/sim/cluster.hpp"

namespace yadokari::sim {

// SimError (exit 2) unless 0 (no limit) <= cpu_per_slot <= 64.
void check_cpu_per_slot(double cpu_per_slot);

// Root, and ip/nsenter (and tc with `need_tc`) in PATH; SimError otherwise.
void check_can_manage(bool need_tc = false);

struct UpResult {
  Cluster cluster;
  bool reused = false;   // an existing healthy cluster of the same shape
  std::string replaced;  // why an existing cluster was torn down first ("" if there was none)
};

// Builds the cluster (or reuses a healthy one of the same shape), with Slurm's daemons if `slurm`
// (sim/slurm_daemons.hpp). On any failure everything started so far is torn down again before
// the SimError propagates.
UpResult bring_up(const std::string& name, int nodes, int slots, const std::string& link, double cpu_per_slot = 0.0,
                  bool slurm = false);

// Kills every process of every node, the frontend and the switch, and removes the state
// directory. False if there was nothing to remove.
bool tear_down(const std::string& name);

struct KillResult {
  std::string hostname;
  bool already_down = false;
  int processes = 0;  // killed, the holder included
};

// SIGKILL to every process inside the node (a crash / power-off), marks it dead in state.json
// and drops it from the agent and hostfiles.
KillResult kill_node(const std::string& name, const std::string& node);

// A new node n<K+1> with `slots` slots (the cluster's if 0) joins the running cluster: its
// holder, network port, link shaping, and its name in every node's /etc/hosts (rewritten in
// place: the nodes bind-mount that very file). Jobs running with agents see it join.
// `cpu_per_slot` > 0 gives it a CPU limit of its own (a slower or faster node than the others).
// On a cluster with Slurm it gets a slurmd and joins the partition.
Node add_node(const std::string& name, int slots, double cpu_per_slot = 0.0);

// Marks a node as leaving (`sim drain`) or not any more: jobs running with agents move their
// ranks off a draining node and place none there; new launches leave it out of the hostfiles.
// Each mark gets a new drain_id. SimError if the node is not up (draining = true) or not a node
// of the cluster.
Node mark_draining(const std::string& name, const std::string& node, bool draining);

// The cluster called `name`; SimError "no simulated cluster named NAME ..." if none.
Cluster load_cluster(const std::string& name);

// "up", "draining" (up, announced as leaving), "down" (killed) or "lost" (state says alive but the
// holder is gone).
std::string node_state(const Node& node);

// Every holder alive and every node up (and Slurm's daemons running on a cluster with Slurm).
bool healthy(const Cluster& cluster);

}  // namespace yadokari::sim
