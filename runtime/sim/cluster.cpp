#include "runtime/sim/cluster.hpp"

#include "runtime/sim/holder.hpp"
#include "runtime/sim/sim_error.hpp"

namespace yadokari::sim {

void check_cluster_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 12;
  for (const char c : name) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'));
  if (!ok) throw SimError("--name must be 1 to 12 lowercase letters or digits, not '" + name + "'", 2);
}

Cluster plan_cluster(const std::string& name, const std::filesystem::path& dir, int nodes, int slots,
                     const std::string& link) {
  Cluster cluster;
  cluster.name = name;
  cluster.dir = dir;
  cluster.slots = slots;
  cluster.link = link;
  cluster.switch_holder.id = "switch";
  cluster.frontend = Node{kFrontendId, "yk" + name + "-fe", "10.213.0.254", 0, 0, "", false, 0.0, false, 0};
  for (int i = 1; i <= nodes; ++i) {
    const std::string id = "n" + std::to_string(i);
    cluster.nodes.push_back(
        Node{id, "yk" + name + "-" + id, "10.213.0." + std::to_string(i), slots, 0, "", false, 0.0, false, 0});
  }
  return cluster;
}

Node* find_node(Cluster& cluster, const std::string& what) {
  auto matches = [&](const Node& node) { return what == node.id || what == node.hostname || what == node.address; };
  for (auto& node : cluster.nodes) {
    if (matches(node)) return &node;
  }
  if (matches(cluster.frontend)) return &cluster.frontend;
  return nullptr;
}

std::string node_names(const Cluster& cluster) {
  std::string names;
  for (const auto& node : cluster.nodes) names += (names.empty() ? "" : ", ") + node.hostname;
  return names;
}

bool holder_running(const Node& node) {
  return node.pid > 0 && !node.netns.empty() && namespace_of(node.pid, "net") == node.netns;
}

}  // namespace yadokari::sim
