#pragma once
// The hosts platform (platform.hpp): a job with node agents on real hosts (`yadokari run
// --hosts/--hostfile`, no --sim). The nodes are the hosts given, their agents are started over a
// remote shell (node_agents.hpp), and the coordinator listens on an address of this host the nodes
// can reach. What platform_hosts.cpp implements that with, declared for its tests:
#include <string>
#include <vector>

#include "runtime/control/coordinator.hpp"
#include "runtime/frontend/node_agents.hpp"
#include "runtime/frontend/restart_plan.hpp"
#include "runtime/launch/launcher.hpp"

namespace yadokari::frontend {

// The hosts as the restart loop's nodes (id = hostname = the name given).
std::vector<ClusterNode> host_nodes(const std::vector<launch::HostSlots>& hosts);

// The job's nodes as its coordinator knows them now: the hosts it started with and those that
// joined (`yadokari join`); alive unless lost.
std::vector<ClusterNode> host_nodes_now(const control::Coordinator& coordinator);

// Where the coordinator listens: `wanted` (--bind-address) if given; 127.0.0.1 when every host is
// this one; else the IPv4 address this host's name resolves to. FrontendError(usage) when that is a
// loopback address or does not resolve: the other hosts could not reach it.
std::string coordinator_address(const std::vector<launch::HostSlots>& hosts, const std::string& wanted);

// How to reach a host: `$YADOKARI_RSH HOST` (words split like a shell would); by default
// `ssh -o BatchMode=yes HOST`, or inside a Slurm allocation (SLURM_JOB_ID set) `srun --nodes=1
// --ntasks=1 --overlap --nodelist HOST`. This host itself (its hostname, localhost, 127.*) without
// a remote shell.
AgentLaunch host_agent_launch(const std::string& host);

}  // namespace yadokari::frontend
