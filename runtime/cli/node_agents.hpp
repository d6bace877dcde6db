#pragma once
// The front end's handle on a job's node agents (runtime/agent): one `yadokari agent` per node,
// started inside the node (simulated nodes: nsenter into the node's namespaces), connected to the
// coordinator. Destroying the handle ends them.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "cli/restart_plan.hpp"
#include "control/coordinator.hpp"

namespace yadokari::cli {

struct AgentLaunch {
  std::string node;                 // "n2"
  std::vector<std::string> prefix;  // enters the node, e.g. nsenter -t PID -n -u -i -m --wd=/ --
};

class NodeAgents {
 public:
  // `env`: the agents' environment (YADOKARI_JOB_ID and YADOKARI_JOB_SECRET included).
  NodeAgents(const std::string& coordinator_endpoint, std::vector<std::string> env)
      : endpoint_(coordinator_endpoint), env_(std::move(env)) {}
  ~NodeAgents();
  NodeAgents(const NodeAgents&) = delete;
  NodeAgents& operator=(const NodeAgents&) = delete;

  // Serves the coordinator until every agent said hello. CliError(failure) "the agent on node n2
  // did not connect within 5 s" (or "... exited with code C") otherwise.
  void wait_until_connected(control::Coordinator& coordinator, std::chrono::milliseconds timeout);

  // Starts the agent of one more node (at the start, or a node that joined).
  void start(const AgentLaunch& node);

 private:
  struct Agent {
    std::string node;
    pid_t pid = 0;
    bool reaped = false;  // waitpid may be called only once
  };
  std::string endpoint_;
  std::vector<std::string> env_;
  std::vector<Agent> agents_;
};

// How to enter a simulated node.
AgentLaunch sim_agent_launch(const ClusterNode& node);

}  // namespace yadokari::cli
