#include "runtime/frontend/node_agents.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "runtime/frontend/child_process.hpp"
#include "runtime/frontend/frontend_error.hpp"
#include "runtime/launch/launcher.hpp"
#include "common/parameters.hpp"

namespace yadokari::frontend {
namespace {

// The yadokari to run on the nodes: $YADOKARI_AGENT, else this very executable (simulated
// nodes share this host's file system).
std::string agent_executable() {
  if (const char* configured = std::getenv(yadokari::parameters::kAgent); configured && *configured) return configured;
  char path[4096] = {};
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) throw FrontendError(ErrorKind::failure, "cannot find the yadokari executable (/proc/self/exe)");
  return std::string(path, static_cast<std::size_t>(length));
}

}  // namespace

void NodeAgents::start(const AgentLaunch& node) {
  const char* path = std::getenv("PATH");
  std::vector<std::string> argv = node.prefix;
  if (!argv.empty() && argv.front().find('/') == std::string::npos) {  // exec does not search PATH
    const auto found = launch::find_in_path(argv.front(), path ? path : "");
    if (!found) throw FrontendError(ErrorKind::not_found, argv.front() + " not found in PATH");
    argv.front() = found->string();
  }
  argv.insert(argv.end(), {agent_executable(), "agent", "--coordinator", endpoint_, "--node", node.node});
  if (!node_dir_.empty()) argv.insert(argv.end(), {"--node-dir", node_dir_});
  if (!node.remote) {
    std::vector<std::string> env = env_;
    env.push_back("YADOKARI_JOB_ID=" + job_id_);
    env.push_back("YADOKARI_JOB_SECRET=" + credential_);
    agents_.push_back(Agent{node.node, spawn_process(argv, env), false, -1});
    return;
  }
  argv.push_back("--credentials-stdin");
  int stdin_fd = -1;
  const pid_t pid = spawn_process_with_pipe(argv, env_, stdin_fd);
  agents_.push_back(Agent{node.node, pid, false, stdin_fd});
  // An agent that has already ended (its remote shell could not reach the host) gets nothing;
  // wait_until_connected() then reports its exit code.
  write_to_child(stdin_fd, job_id_ + " " + credential_ + "\n");
}

NodeAgents::~NodeAgents() {
  // Agents end on SIGTERM (remote ones when their stdin closes) once what is left of the job in
  // their node has ended, at most 4 s (runtime/agent/node_agent.cpp, end_of_job); one that does not
  // end within 6 s is killed.
  for (const auto& agent : agents_)
    if (agent.stdin_fd >= 0) close(agent.stdin_fd);
  try {
    for (const auto& agent : agents_)
      if (!agent.reaped) kill(agent.pid, SIGTERM);
    for (auto& agent : agents_) {
      for (int i = 0; i < 600 && !agent.reaped; ++i) {
        agent.reaped = try_reap(agent.pid).has_value();
        if (!agent.reaped) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      if (agent.reaped) continue;
      kill(agent.pid, SIGKILL);
      while (!try_reap(agent.pid)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  } catch (const FrontendError&) {
    // waitpid failed: nothing left to reap
  }
}

void NodeAgents::wait_until_connected(control::Coordinator& coordinator, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    coordinator.poll(std::chrono::milliseconds(20));
    std::string missing;
    for (auto& agent : agents_) {
      if (!coordinator.agent_hostname(agent.node).empty()) continue;
      if (const auto code = try_reap(agent.pid)) {
        agent.reaped = true;
        throw FrontendError(ErrorKind::failure, "the agent on node " + agent.node + " exited with code " +
                                                    std::to_string(*code) + " before it connected");
      }
      missing = agent.node;
    }
    if (missing.empty()) return;
    if (std::chrono::steady_clock::now() >= deadline)
      throw FrontendError(ErrorKind::failure, "the agent on node " + missing + " did not connect within " +
                                                  std::to_string(timeout.count() / 1000) + " s");
  }
}

bool is_this_host(const std::string& host) {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return host == name || host == "localhost" || host.rfind("127.", 0) == 0;
}

}  // namespace yadokari::frontend
