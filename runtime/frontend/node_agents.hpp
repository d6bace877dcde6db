#pragma once
// The front end's handle on a job's node agents (runtime/agent): one `yadokari agent` per node,
// started inside the node (simulated nodes: nsenter into the node's namespaces), connected to the
// coordinator. Destroying the handle ends them.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "runtime/control/coordinator.hpp"

namespace yadokari::frontend {

struct AgentLaunch {
  std::string node;                 // "n2"
  std::vector<std::string> prefix;  // enters the node, e.g. nsenter -t PID -n -u -i -m --wd=/ --
  // Through a remote shell (ssh): the environment does not get across, so the job id and credential
  // go through the agent's stdin (never argv: ps shows it), which stays open while the job runs.
  bool remote = false;
};

class NodeAgents {
 public:
  // `env`: the agents' environment; local agents get the job id and credential added to it.
  // `node_dir`: node-local image storage (--node-dir), the same path on every node; "" for none.
  NodeAgents(const std::string& coordinator_endpoint, std::vector<std::string> env, std::string job_id,
             std::string credential, std::string node_dir = {})
      : endpoint_(coordinator_endpoint),
        env_(std::move(env)),
        job_id_(std::move(job_id)),
        credential_(std::move(credential)),
        node_dir_(std::move(node_dir)) {}
  ~NodeAgents();
  NodeAgents(const NodeAgents&) = delete;
  NodeAgents& operator=(const NodeAgents&) = delete;

  // Serves the coordinator until every agent said hello. FrontendError(failure) "the agent on node n2
  // did not connect within 5 s" (or "... exited with code C") otherwise.
  void wait_until_connected(control::Coordinator& coordinator, std::chrono::milliseconds timeout);

  // Starts the agent of one more node (at the start, or a node that joined).
  void start(const AgentLaunch& node);

 private:
  struct Agent {
    std::string node;
    pid_t pid = 0;
    bool reaped = false;  // waitpid may be called only once
    int stdin_fd = -1;    // remote agents: their credentials pipe; closing it ends them
  };
  std::string endpoint_;
  std::vector<std::string> env_;
  std::string job_id_;
  std::string credential_;  // protocol/credential.hpp
  std::string node_dir_;
  std::vector<Agent> agents_;
};

// True for this host's own names (gethostname(), localhost, 127.x.y.z).
bool is_this_host(const std::string& host);

}  // namespace yadokari::frontend
