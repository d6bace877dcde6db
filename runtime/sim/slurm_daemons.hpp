#pragma once
// A real Slurm on a simulated cluster (`yadokari sim up --slurm`): munged and slurmctld on the
// frontend, one slurmd inside each node's namespaces, from Debian's packages (docs/platform.md §6).
// The configuration is written here; every node sees it as /etc/slurm (a bind mount in its own
// mount namespace), so `sim exec fe -- sbatch ...` needs no SLURM_CONF. The daemons' key, state,
// spool directories and logs live in <cluster dir>/slurm/ and go with the cluster: `sim down`
// kills every process of the cluster's namespaces, the daemons included, and removes the directory;
// `sim kill` takes the node's slurmd down with it, so Slurm sees the node stop answering.
#include <filesystem>
#include <string>

#include "runtime/sim/cluster.hpp"

namespace yadokari::sim {

// <cluster dir>/slurm
std::filesystem::path slurm_dir(const Cluster& cluster);

// SimError (exit 127) naming the Debian package when a daemon or scontrol is missing.
void check_slurm_tools();

// The slurm.conf of the cluster: its frontend as the controller, every node (dead ones too: Slurm
// keeps them DOWN) with the node's address and its slots as CPUs.
std::string slurm_config(const Cluster& cluster);

// Writes the key and the configuration, starts munged and slurmctld on the frontend and a slurmd
// on every live node, and waits (bounded) until every node has registered. SimError on failure
// (what was started stays inside the cluster's namespaces for `sim down` to remove).
void start_slurm(const Cluster& cluster);

// `sim add`: the new node's slurmd, registered as a dynamic node of the partition; waits until it
// has registered.
void start_slurm_node(const Cluster& cluster, const Node& node);

// slurmctld and munged are running (their pid files name live processes).
bool slurm_running(const Cluster& cluster);

}  // namespace yadokari::sim
