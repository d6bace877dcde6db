#include "runtime/sim/state_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_whole.hpp"
#include "runtime/sim/sim_error.hpp"
#include "common/parameters.hpp"

namespace yadokari::sim {

namespace {

nlohmann::json node_json(const Node& node) {
  return {{"node", node.id},           {"hostname", node.hostname},
          {"address", node.address},   {"slots", node.slots},
          {"pid", node.pid},           {"netns", node.netns},
          {"alive", node.alive},       {"cpu_per_slot", node.cpu_per_slot},
          {"draining", node.draining}, {"drain_id", node.drain_id}};
}

Node node_from(const nlohmann::json& j) {
  Node node;
  node.id = j.at("node").get<std::string>();
  node.hostname = j.at("hostname").get<std::string>();
  node.address = j.at("address").get<std::string>();
  node.slots = json_whole<int>(j, "slots");
  node.pid = json_whole<pid_t>(j, "pid");
  node.netns = j.at("netns").get<std::string>();
  node.alive = j.at("alive").get<bool>();
  node.cpu_per_slot = j.value("cpu_per_slot", 0.0);  // absent in state files of older builds
  node.draining = j.value("draining", false);        // likewise
  node.drain_id = j.value("drain_id", std::uint64_t{0});
  return node;
}

}  // namespace

std::filesystem::path clusters_base_dir() {
  const char* dir = std::getenv(yadokari::parameters::kSimDir);
  return (dir && *dir) ? std::filesystem::path(dir) : std::filesystem::path("/run/yadokari/sim");
}

std::filesystem::path cluster_dir(const std::string& name) { return clusters_base_dir() / name; }

nlohmann::json to_json(const Cluster& cluster) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& node : cluster.nodes) nodes.push_back(node_json(node));
  return {{"format", 1},
          {"name", cluster.name},
          {"dir", cluster.dir.string()},
          {"subnet", kSubnet},
          {"slots", cluster.slots},
          {"link", cluster.link},
          {"cpu_per_slot", cluster.cpu_per_slot},
          {"slurm", cluster.slurm},
          {"switch", node_json(cluster.switch_holder)},
          {"frontend", node_json(cluster.frontend)},
          {"nodes", nodes},
          {"hosts", cluster.hosts_file().string()},
          {"hostfile_openmpi", cluster.hostfile_openmpi().string()},
          {"hostfile_mpich", cluster.hostfile_mpich().string()},
          {"agent", cluster.agent().string()}};
}

Cluster cluster_from_json(const nlohmann::json& state) {
  if (json_whole<int>(state, "format") != 1) throw SimError("unknown state format");
  Cluster cluster;
  cluster.name = state.at("name").get<std::string>();
  cluster.dir = state.at("dir").get<std::string>();
  cluster.slots = json_whole<int>(state, "slots");
  cluster.link = state.at("link").get<std::string>();
  cluster.cpu_per_slot = state.value("cpu_per_slot", 0.0);
  cluster.slurm = state.value("slurm", false);  // absent in state files of older builds
  cluster.switch_holder = node_from(state.at("switch"));
  cluster.frontend = node_from(state.at("frontend"));
  for (const auto& node : state.at("nodes")) cluster.nodes.push_back(node_from(node));
  return cluster;
}

void write_file(const std::filesystem::path& path, const std::string& content, unsigned mode) {
  try {
    write_file_atomically(path, content, Durability::survives_crash, static_cast<mode_t>(mode));
  } catch (const IoError& e) {
    throw SimError(e.what());
  }
}

void save_state(const Cluster& cluster) { write_file(cluster.state_file(), to_json(cluster).dump(2) + "\n"); }

std::optional<Cluster> load_state(const std::filesystem::path& dir) {
  std::ifstream in(dir / "state.json");
  if (!in) return std::nullopt;
  try {
    Cluster cluster = cluster_from_json(nlohmann::json::parse(in));
    cluster.dir = dir;  // the directory it was found in wins (it may have been moved)
    return cluster;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<std::string> cluster_names() {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(clusters_base_dir(), error)) {
    if (std::filesystem::exists(entry.path() / "state.json")) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace yadokari::sim
