#pragma once
// The launch agent (`<dir>/agent`), what Open MPI's plm_rsh_agent and Hydra's -launcher-exec call
// instead of ssh: `agent [ssh options] HOST COMMAND...`. It drops the ssh options, maps HOST
// (hostname, node id or address) to the node's holder, refuses dead nodes like ssh does
// (exit 255), and runs COMMAND as sshd would: `sh -c "COMMAND..."` in $HOME, with a login-like
// environment, inside the node's network, UTS, IPC and mount namespaces.
#include <string>

#include "runtime/sim/cluster.hpp"

namespace yadokari::sim {

std::string agent_script(const Cluster& cluster);

// Writes the agent (mode 0755); rewritten when a node is killed.
void write_agent(const Cluster& cluster);

}  // namespace yadokari::sim
