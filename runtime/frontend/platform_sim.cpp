// The sim platform: a job on the simulated cluster NAME (`yadokari run/restart --sim NAME`,
// `yadokari sim`). The launcher runs in the cluster's frontend namespaces with the cluster's
// hostfile and launch agent, the coordinator listens on the frontend's address, the only one the
// nodes can reach, and every live node gets an agent (nsenter into the node).
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/frontend/frontend_error.hpp"
#include "runtime/frontend/network_namespace.hpp"
#include "runtime/frontend/platform.hpp"
#include "runtime/launch/launcher.hpp"
#include "runtime/sim/launch_settings.hpp"
#include "runtime/sim/lifecycle.hpp"
#include "runtime/sim/sim_error.hpp"

namespace yadokari::frontend {
namespace {

struct SimPlacement {
  std::string bind_address;                  // the frontend's
  int frontend_pid = 0;                      // its namespaces' holder
  std::vector<std::string> frontend_prefix;  // prepended to the launcher's argv
  std::vector<std::string> launcher_args;    // right after the launcher (without the hostfile)
  std::vector<std::string> hostfile_args;    // the cluster's hostfile (live nodes), when no hosts are given
  std::vector<std::pair<std::string, std::string>> environment;  // for the launcher
  std::vector<ClusterNode> nodes;                                // compute nodes; alive = not taken down by `sim kill`
};

// FrontendError(failure) when the cluster is missing or has no live node.
SimPlacement sim_placement(const std::string& name, launch::MpiFlavour flavour) {
  try {
    const sim::Cluster cluster = sim::load_cluster(name);
    bool any_alive = false;
    for (const auto& node : cluster.nodes) any_alive = any_alive || node.alive;
    if (!any_alive) throw FrontendError(ErrorKind::failure, "simulated cluster " + name + " has no live node");
    const sim::LaunchSettings settings = sim::launch_settings(cluster, flavour);
    SimPlacement placement{cluster.frontend.address,
                           static_cast<int>(cluster.frontend.pid),
                           settings.frontend_prefix,
                           {},
                           {},
                           settings.environment,
                           {}};
    // The hostfile goes apart: a restart gives the launcher its own host list instead.
    for (std::size_t i = 0; i < settings.launcher_args.size(); ++i) {
      const std::string& arg = settings.launcher_args[i];
      const bool hostfile = (arg == "--hostfile" || arg == "-f") && i + 1 < settings.launcher_args.size();
      auto& into = hostfile ? placement.hostfile_args : placement.launcher_args;
      into.push_back(arg);
      if (hostfile) into.push_back(settings.launcher_args[++i]);
    }
    for (const auto& node : cluster.nodes)
      placement.nodes.push_back(ClusterNode{node.id, node.hostname, node.slots, node.alive, static_cast<int>(node.pid),
                                            node.draining, node.drain_id});
    return placement;
  } catch (const sim::SimError& e) {
    throw FrontendError(ErrorKind::failure, e.what());
  }
}

// --hosts on a simulated cluster: each host must be one of its live nodes (id or hostname);
// returned with the nodes' hostnames, which the ranks report. FrontendError(usage) otherwise.
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

// The cluster's nodes as they are now (after `sim kill`s and `sim add`s), for re-planning.
std::vector<ClusterNode> sim_nodes_now(const std::string& name) {
  try {
    std::vector<ClusterNode> nodes;
    for (const auto& node : sim::load_cluster(name).nodes)
      nodes.push_back(ClusterNode{node.id, node.hostname, node.slots, node.alive && sim::holder_running(node),
                                  static_cast<int>(node.pid), node.draining, node.drain_id});
    return nodes;
  } catch (const sim::SimError& e) {
    throw FrontendError(ErrorKind::failure, e.what());
  }
}

constexpr std::chrono::milliseconds kAgentConnectTimeout{5000};

// How to enter a simulated node.
AgentLaunch sim_agent_launch(const ClusterNode& node) {
  return AgentLaunch{
      node.id, {"nsenter", "-t", std::to_string(node.holder_pid), "-n", "-u", "-i", "-m", "--wd=/", "--"}, false};
}

class SimPlatform : public Platform {
 public:
  explicit SimPlatform(const LaunchRequest& request)
      : name_(*request.sim),
        hosts_(request.hosts),
        ranks_(request.ranks),
        placement_(sim_placement(name_, request.flavour)) {}

  // The nodes reach only the frontend's address: the coordinator's sockets are made inside the
  // frontend's network namespace.
  std::string bind_host() const override { return placement_.bind_address; }
  std::unique_ptr<control::Coordinator> start_coordinator(const control::CoordinatorConfig& config) const override {
    return in_network_namespace_of(placement_.frontend_pid,
                                   [&] { return std::make_unique<control::Coordinator>(config); });
  }
  int netns_pid() const override { return placement_.frontend_pid; }

  // Every node gets an agent, whose heartbeats detect its loss.
  bool has_agents() const override { return true; }
  std::vector<ClusterNode> nodes() const override { return placement_.nodes; }
  AgentLaunch agent_launch(const ClusterNode& node) const override { return sim_agent_launch(node); }
  std::chrono::milliseconds agent_connect_timeout() const override { return kAgentConnectTimeout; }
  std::vector<ClusterNode> nodes_now(const control::Coordinator&) const override { return sim_nodes_now(name_); }
  std::vector<ClusterNode> joined_nodes(const control::Coordinator& coordinator) const override {
    std::vector<ClusterNode> nodes;
    try {
      nodes = sim_nodes_now(name_);
    } catch (const FrontendError&) {
      return {};  // the cluster is being changed or torn down; its agents tell the rest
    }
    std::vector<ClusterNode> joined;
    for (const auto& node : nodes)
      if (node.alive && !node.draining && !coordinator.expects_node(node.id)) joined.push_back(node);
    return joined;
  }
  // The nodes share this host's pid namespace.
  bool shares_pid_namespace() const override { return true; }

  // The launcher runs in the frontend's namespaces with the cluster's hostfile and launch agent.
  // Without --hosts, the live nodes in the cluster's order (the hostfile's); only those the ranks
  // fill (hosts_the_ranks_fill).
  std::vector<launch::HostSlots> first_hosts() const override {
    std::vector<launch::HostSlots> hosts;
    if (hosts_.empty()) {
      for (const auto& node : placement_.nodes)
        if (node.alive && !node.draining) hosts.push_back(launch::HostSlots{node.hostname, node.slots});
    } else {
      hosts = sim_hosts(placement_, name_, hosts_);
    }
    return hosts_the_ranks_fill(hosts, ranks_);
  }
  std::vector<std::pair<std::string, std::string>> launcher_environment() const override {
    return placement_.environment;
  }
  std::vector<std::string> launcher_args(bool hosts_given) const override {
    std::vector<std::string> args = placement_.launcher_args;
    if (!hosts_given) args.insert(args.end(), placement_.hostfile_args.begin(), placement_.hostfile_args.end());
    return args;
  }
  std::vector<std::string> launcher_prefix(const std::string& path) const override {
    std::vector<std::string> prefix = placement_.frontend_prefix;
    if (!prefix.empty() && prefix.front().find('/') == std::string::npos) {  // exec does not search PATH
      const auto found = launch::find_in_path(prefix.front(), path);
      if (!found) throw FrontendError(ErrorKind::not_found, prefix.front() + " not found in PATH");
      prefix.front() = found->string();
    }
    return prefix;
  }

 private:
  std::string name_;
  std::vector<launch::HostSlots> hosts_;  // --hosts: some of the cluster's nodes
  int ranks_ = 0;
  SimPlacement placement_;
};

}  // namespace

std::unique_ptr<Platform> make_sim_platform(const LaunchRequest& request) {
  return std::make_unique<SimPlatform>(request);
}

}  // namespace yadokari::frontend
