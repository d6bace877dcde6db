#pragma once
// Every process inside a node: those whose /proc/<pid>/ns/net is the node's network namespace
// (the holder, and whatever `nsenter` put there: orted, hydra_pmi_proxy, ranks, shells).
#include <sys/types.h>

#include <string>
#include <vector>

namespace yadokari::sim {

std::vector<pid_t> processes_in_netns(const std::string& netns);

// SIGKILL to every process in `netns`, repeated until none is left (a process may fork while we
// kill) or 5 s have passed. Refuses the caller's own network namespace. Returns how many were killed.
int kill_netns_members(const std::string& netns);

}  // namespace yadokari::sim
