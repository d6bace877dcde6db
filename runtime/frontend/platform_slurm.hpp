#pragma once
// The slurm platform (platform.hpp): `yadokari run` inside a Slurm allocation (SLURM_JOB_ID set, no
// --hosts, --hostfile or --sim). The nodes and their slots are the allocation's, each node's agent
// is a job step (`srun --overlap`), the coordinator listens on an address of this host the nodes
// reach, and the MPI's own launcher starts the ranks through Slurm (it sees the allocation). What
// platform_slurm.cpp implements that with, declared for its tests:
#include <string>
#include <string_view>
#include <vector>

#include "runtime/launch/launcher.hpp"

namespace yadokari::frontend {

// The per-node counts of SLURM_TASKS_PER_NODE / SLURM_JOB_CPUS_PER_NODE ("2(x3),1" -> 2 2 2 1).
// FrontendError(usage) on anything else.
std::vector<int> parse_slurm_counts(std::string_view text);

// The allocation's hosts with their slots: `hostnames` (SLURM_JOB_NODELIST expanded, in order)
// with `counts` (parse_slurm_counts). FrontendError(usage) when the numbers differ.
std::vector<launch::HostSlots> slurm_hosts(const std::vector<std::string>& hostnames, const std::vector<int>& counts);

// Whether this process runs inside a Slurm allocation (SLURM_JOB_ID is set and not empty).
bool in_slurm_allocation();

}  // namespace yadokari::frontend
