#include "runtime/sim/lifecycle.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>

#include "runtime/launch/launcher_leftovers.hpp"
#include "runtime/sim/agent_script.hpp"
#include "runtime/sim/command.hpp"
#include "runtime/sim/cpu_limit.hpp"
#include "runtime/sim/holder.hpp"
#include "runtime/sim/link_shape.hpp"
#include "runtime/sim/host_files.hpp"
#include "runtime/sim/namespace_members.hpp"
#include "runtime/sim/network.hpp"
#include "runtime/sim/sim_error.hpp"
#include "runtime/sim/slurm_daemons.hpp"
#include "runtime/sim/state_file.hpp"
#include "common/parameters.hpp"

namespace yadokari::sim {

namespace {

// Holders whose argv[0] says they belong to the cluster in `dir` (found even without state.json).
std::vector<pid_t> tagged_holders(const std::filesystem::path& dir) {
  const std::string prefix = holder_tag(dir, "");
  std::vector<pid_t> holders;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::atoi(name.c_str()));
    if (process_argv0(pid).starts_with(prefix)) holders.push_back(pid);
  }
  return holders;
}

// Everything inside the namespaces of the holder `pid`, if it really is one of this cluster's.
int kill_holder_and_members(const std::filesystem::path& dir, pid_t pid) {
  if (pid <= 0 || !process_argv0(pid).starts_with(holder_tag(dir, ""))) return 0;
  return kill_netns_members(namespace_of(pid, "net"));
}

void start_holder(Cluster& cluster, Node& node, bool full_node) {
  HolderSpec spec;
  spec.tag = holder_tag(cluster.dir, node.id);
  spec.full_node = full_node;
  spec.hostname = node.hostname;
  spec.hosts_file = cluster.hosts_file();
  node.pid = spawn_holder(spec);
  node.netns = namespace_of(node.pid, "net");
  if (node.netns.empty()) throw SimError("namespace holder " + spec.tag + " exited right after it started");
  node.alive = true;
  save_state(cluster);  // recorded at once, so a failure later still finds it
}

void build(Cluster& cluster) {
  std::filesystem::create_directories(cluster.dir);
  write_hosts_file(cluster);
  save_state(cluster);
  start_holder(cluster, cluster.switch_holder, false);
  create_switch(cluster.switch_holder);
  start_holder(cluster, cluster.frontend, true);
  plug_node(cluster.switch_holder, cluster.frontend);
  for (auto& node : cluster.nodes) {
    start_holder(cluster, node, true);
    limit_node_cpu(cluster, node);
    plug_node(cluster.switch_holder, node);
    if (!cluster.link.empty()) shape_link(node, cluster.link);
  }
  write_hostfiles(cluster);
  write_agent(cluster);
  save_state(cluster);
  if (cluster.slurm) start_slurm(cluster);
}

void remove_cluster_dir(const std::filesystem::path& dir) {
  for (const pid_t pid : tagged_holders(dir)) kill_holder_and_members(dir, pid);
  if (auto cluster = load_state(dir)) {
    for (const auto& node : cluster->nodes) kill_holder_and_members(dir, node.pid);
    kill_holder_and_members(dir, cluster->frontend.pid);
    kill_holder_and_members(dir, cluster->switch_holder.pid);
    // The nodes share this host's /tmp; what their Open MPI daemons kept there goes with them.
    for (const auto& node : cluster->nodes) launch::remove_open_mpi_host_dirs(node.hostname);
    launch::remove_open_mpi_host_dirs(cluster->frontend.hostname);
  }
  remove_cpu_limits(dir);
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  if (error) throw SimError("cannot remove " + dir.string() + ": " + error.message());
  // The default base directory goes when its last cluster goes; one named by YADOKARI_SIM_DIR stays.
  const char* base = std::getenv(yadokari::parameters::kSimDir);
  if (!base || !*base) std::filesystem::remove(dir.parent_path(), error);  // fails (ignored) unless empty
}

}  // namespace

void check_cpu_per_slot(double cpu_per_slot) {
  if (!(cpu_per_slot >= 0) || cpu_per_slot > 64)
    throw SimError("--cpu-per-slot must be a number of CPUs from 0 (no limit) to 64", 2);
}

void check_can_manage(bool need_tc) {
  if (geteuid() != 0) throw SimError("sim needs root (it creates namespaces and network devices)");
  require_tool("ip", "iproute2");
  require_tool("nsenter", "util-linux");
  if (need_tc) require_tool("tc", "iproute2");
}

std::string node_state(const Node& node) {
  if (!node.alive) return "down";
  if (!holder_running(node)) return "lost";
  return node.draining ? "draining" : "up";
}

bool healthy(const Cluster& cluster) {
  if (!holder_running(cluster.switch_holder) || node_state(cluster.frontend) != "up") return false;
  for (const auto& node : cluster.nodes) {
    if (node_state(node) != "up") return false;
  }
  return std::filesystem::exists(cluster.agent()) && (!cluster.slurm || slurm_running(cluster));
}

Cluster load_cluster(const std::string& name) {
  check_cluster_name(name);
  auto cluster = load_state(cluster_dir(name));
  if (!cluster) throw SimError("no simulated cluster named " + name + " (start one with yadokari sim up)");
  return *cluster;
}

UpResult bring_up(const std::string& name, int nodes, int slots, const std::string& link, double cpu_per_slot,
                  bool slurm) {
  check_cluster_name(name);
  if (nodes < 1 || nodes > kMaxNodes) {
    throw SimError("--nodes must be from 1 to " + std::to_string(kMaxNodes) + ", not " + std::to_string(nodes), 2);
  }
  if (slots < 1) throw SimError("--slots must be at least 1, not " + std::to_string(slots), 2);
  check_cpu_per_slot(cpu_per_slot);
  if (!link.empty()) link_qdisc_args(link);  // a bad rate is refused before anything is built
  check_can_manage(!link.empty());
  if (slurm) check_slurm_tools();

  UpResult result;
  const auto dir = cluster_dir(name);
  if (auto existing = load_state(dir)) {
    const bool same_shape = existing->nodes.size() == static_cast<size_t>(nodes) && existing->slots == slots &&
                            existing->link == link && existing->cpu_per_slot == cpu_per_slot &&
                            existing->slurm == slurm;
    if (same_shape && healthy(*existing)) {
      result.cluster = *existing;
      result.reused = true;
      return result;
    }
    result.replaced = same_shape ? "it was broken (a holder is gone, or a node is down or draining)"
                                 : "it had another shape (" + std::to_string(existing->nodes.size()) + " nodes x " +
                                       std::to_string(existing->slots) + " slots" +
                                       (existing->link.empty() ? "" : ", link '" + existing->link + "'") +
                                       (existing->slurm ? ", Slurm" : "") + ")";
  } else if (std::filesystem::exists(dir)) {
    result.replaced = "its state was unreadable";
  }
  remove_cluster_dir(dir);

  result.cluster = plan_cluster(name, dir, nodes, slots, link);
  result.cluster.cpu_per_slot = cpu_per_slot;
  result.cluster.slurm = slurm;
  try {
    build(result.cluster);
  } catch (const SimError& e) {
    try {
      remove_cluster_dir(dir);
    } catch (const SimError&) {
    }
    if (e.exit_code() != 1) throw;
    throw SimError(std::string("sim up failed: ") + e.what() + " (nothing was left behind)");
  } catch (const std::exception& e) {
    try {
      remove_cluster_dir(dir);
    } catch (const SimError&) {
    }
    throw SimError(std::string("sim up failed: ") + e.what() + " (nothing was left behind)");
  }
  return result;
}

bool tear_down(const std::string& name) {
  check_cluster_name(name);
  if (geteuid() != 0) throw SimError("sim needs root (it creates namespaces and network devices)");
  const auto dir = cluster_dir(name);
  const bool present = std::filesystem::exists(dir) || !tagged_holders(dir).empty();
  if (present) remove_cluster_dir(dir);
  return present;
}

KillResult kill_node(const std::string& name, const std::string& what) {
  check_can_manage();
  Cluster cluster = load_cluster(name);
  Node* node = find_node(cluster, what);
  if (!node) {
    throw SimError("cluster " + name + " has no node " + what + " (nodes: " + node_names(cluster) + ")");
  }
  if (node == &cluster.frontend) {
    throw SimError(node->hostname + " is the frontend, not a node; use yadokari sim down to remove the cluster", 2);
  }
  KillResult result;
  result.hostname = node->hostname;
  if (!node->alive) {
    result.already_down = true;
    return result;
  }
  if (holder_running(*node) && process_argv0(node->pid).starts_with(holder_tag(cluster.dir, ""))) {
    result.processes = kill_netns_members(node->netns);
  }
  // A lost node's disk is lost with it; here it is this host's /tmp (Open MPI's session directory).
  launch::remove_open_mpi_host_dirs(node->hostname);
  node->alive = false;
  write_hostfiles(cluster);
  write_agent(cluster);
  save_state(cluster);
  return result;
}

namespace {
// Never 0 (not draining).
std::uint64_t new_drain_id() {
  std::random_device device;
  const std::uint64_t id = (std::uint64_t{device()} << 32) | device();
  return id ? id : 1;
}
}  // namespace

Node mark_draining(const std::string& name, const std::string& what, bool draining) {
  check_can_manage();
  Cluster cluster = load_cluster(name);
  Node* node = find_node(cluster, what);
  if (!node) throw SimError("cluster " + name + " has no node " + what + " (nodes: " + node_names(cluster) + ")");
  if (node == &cluster.frontend)
    throw SimError(node->hostname + " is the frontend, not a node; use yadokari sim down to remove the cluster", 2);
  if (draining && node_state(*node) != "up" && node_state(*node) != "draining")
    throw SimError("node " + node->id + " of cluster " + name + " is " + node_state(*node) + ", not up");
  node->draining = draining;
  node->drain_id = draining ? new_drain_id() : 0;
  write_hostfiles(cluster);
  save_state(cluster);
  return *node;
}

Node add_node(const std::string& name, int slots, double cpu_per_slot) {
  check_can_manage();
  Cluster cluster = load_cluster(name);
  if (slots < 0) throw SimError("--slots must be at least 1, not " + std::to_string(slots), 2);
  check_cpu_per_slot(cpu_per_slot);
  if (!holder_running(cluster.switch_holder) || node_state(cluster.frontend) != "up")
    throw SimError("cluster " + name + " is broken (its switch or frontend is gone); bring it up again");
  const int number = static_cast<int>(cluster.nodes.size()) + 1;
  if (number > kMaxNodes) throw SimError("cluster " + name + " already has " + std::to_string(kMaxNodes) + " nodes", 2);
  const std::string id = "n" + std::to_string(number);
  cluster.nodes.push_back(Node{id, "yk" + name + "-" + id, "10.213.0." + std::to_string(number),
                               slots > 0 ? slots : cluster.slots, 0, "", false, cpu_per_slot, false, 0});
  Node& node = cluster.nodes.back();
  rewrite_hosts_file_in_place(cluster);  // before the holder bind-mounts it
  try {
    start_holder(cluster, node, true);
    limit_node_cpu(cluster, node);
    plug_node(cluster.switch_holder, node);
    if (!cluster.link.empty()) shape_link(node, cluster.link);
    if (cluster.slurm) start_slurm_node(cluster, node);
  } catch (const SimError& e) {
    kill_holder_and_members(cluster.dir, node.pid);
    cluster.nodes.pop_back();
    save_state(cluster);
    throw SimError(std::string("sim add failed: ") + e.what());
  }
  write_hostfiles(cluster);
  write_agent(cluster);
  save_state(cluster);
  return node;
}

}  // namespace yadokari::sim
