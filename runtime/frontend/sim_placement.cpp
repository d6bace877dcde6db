#include "frontend/sim_placement.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "frontend/frontend_error.hpp"
#include "sim/launch_settings.hpp"
#include "sim/lifecycle.hpp"
#include "sim/sim_error.hpp"

namespace yadokari::frontend {

SimPlacement sim_placement(const std::string& name, launch::MpiFlavour flavour) {
  try {
    const sim::Cluster cluster = sim::load_cluster(name);
    bool any_alive = false;
    for (const auto& node : cluster.nodes) any_alive = any_alive || node.alive;
    if (!any_alive) throw FrontendError(ErrorKind::failure, "simulated cluster " + name + " has no live node");
    const sim::LaunchSettings settings = sim::launch_settings(cluster, flavour);
    SimPlacement placement{cluster.frontend.address, static_cast<int>(cluster.frontend.pid),
                           settings.frontend_prefix, {}, {}, settings.environment, {}};
    // The hostfile goes apart: a restart gives the launcher its own host list instead.
    for (std::size_t i = 0; i < settings.launcher_args.size(); ++i) {
      const std::string& arg = settings.launcher_args[i];
      const bool hostfile = (arg == "--hostfile" || arg == "-f") && i + 1 < settings.launcher_args.size();
      auto& into = hostfile ? placement.hostfile_args : placement.launcher_args;
      into.push_back(arg);
      if (hostfile) into.push_back(settings.launcher_args[++i]);
    }
    for (const auto& node : cluster.nodes)
      placement.nodes.push_back(ClusterNode{node.id, node.hostname, node.slots, node.alive, static_cast<int>(node.pid)});
    return placement;
  } catch (const sim::SimError& e) {
    throw FrontendError(ErrorKind::failure, e.what());
  }
}

std::vector<launch::HostSlots> sim_hosts(const SimPlacement& sim, const std::string& cluster,
                                         std::vector<launch::HostSlots> hosts) {
  std::string live;
  for (const auto& node : sim.nodes)
    if (node.alive) live += (live.empty() ? "" : ", ") + node.hostname;
  for (auto& host : hosts) {
    const ClusterNode* match = nullptr;
    for (const auto& node : sim.nodes)
      if (node.id == host.host || node.hostname == host.host) match = &node;
    if (!match || !match->alive)
      throw FrontendError(ErrorKind::usage, "host " + host.host + " is not a live node of the simulated cluster " +
                                           cluster + " (" + live + ")");
    host.host = match->hostname;
  }
  return hosts;
}

std::vector<ClusterNode> sim_nodes_now(const std::string& name) {
  try {
    std::vector<ClusterNode> nodes;
    for (const auto& node : sim::load_cluster(name).nodes)
      nodes.push_back(ClusterNode{node.id, node.hostname, node.slots, node.alive && sim::holder_running(node),
                                  static_cast<int>(node.pid)});
    return nodes;
  } catch (const sim::SimError& e) {
    throw FrontendError(ErrorKind::failure, e.what());
  }
}

void enter_network_namespace(int pid, int* saved_fd) {
  *saved_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  const std::string path = "/proc/" + std::to_string(pid) + "/ns/net";
  const int target = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (*saved_fd < 0 || target < 0 || setns(target, CLONE_NEWNET) != 0) {
    const std::string why = std::strerror(errno);
    if (target >= 0) close(target);
    if (*saved_fd >= 0) close(*saved_fd);
    throw FrontendError(ErrorKind::failure, "cannot enter the simulated cluster's frontend (" + path + "): " + why);
  }
  close(target);
}

void leave_network_namespace(int saved_fd) {
  if (saved_fd < 0) return;
  (void)setns(saved_fd, CLONE_NEWNET);
  close(saved_fd);
}

}  // namespace yadokari::frontend
