#pragma once
// Per-node CPU limits of a simulated cluster (`sim up --cpu-per-slot F`): every node gets a CPU
// cgroup whose quota is slots x F CPUs, and the launch agent puts what it starts on a node (MPI
// daemons, hence the ranks) into that node's cgroup. On a 2-core host this is what makes nodes
// differ in speed and makes oversubscribing a node cost what it costs on a real one.
#include <filesystem>
#include <string>

#include "runtime/sim/cluster.hpp"

namespace yadokari::sim {

// CPUs per slot the node may use: its own limit, else the cluster's; 0 = no limit.
double node_cpu_per_slot(const Cluster& cluster, const Node& node);

// The node's cgroup directory ("" when the node has no CPU limit).
std::string node_cgroup(const Cluster& cluster, const Node& node);

// Creates the node's cgroup with its quota. Throws SimError when the host has no usable CPU
// controller (cgroup v1 `cpu` or v2 with `cpu` enabled).
void limit_node_cpu(const Cluster& cluster, const Node& node);

// Removes the cluster's cgroups (its processes must be gone); nothing if there are none.
void remove_cpu_limits(const std::filesystem::path& cluster_dir);

}  // namespace yadokari::sim
