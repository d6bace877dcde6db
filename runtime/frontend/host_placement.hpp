#pragma once
// Running a job with node agents on real hosts (`yadokari run --hosts/--hostfile`, no --sim):
// the nodes are the hosts given, their agents are started over a remote shell (node_agents.hpp),
// and the coordinator listens on an address of this host the nodes can reach.
#include <string>
#include <vector>

#include "control/coordinator.hpp"
#include "frontend/restart_plan.hpp"
#include "launch/launcher.hpp"

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

}  // namespace yadokari::frontend
