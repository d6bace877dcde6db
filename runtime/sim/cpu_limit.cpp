#include "runtime/sim/cpu_limit.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <fstream>
#include <system_error>
#include <thread>

#include "runtime/sim/sim_error.hpp"

namespace yadokari::sim {
namespace {

namespace fs = std::filesystem;
constexpr long kPeriodMicroseconds = 100000;

// cgroup v1's cpu hierarchy, else the v2 root (whose cpu.max needs the cpu controller).
fs::path cpu_hierarchy() {
  if (fs::exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")) return "/sys/fs/cgroup/cpu";
  std::ifstream controllers("/sys/fs/cgroup/cgroup.controllers");
  std::string word;
  while (controllers >> word)
    if (word == "cpu") return "/sys/fs/cgroup";
  return {};
}

bool is_v1(const fs::path& hierarchy) { return hierarchy.filename() == "cpu"; }

// One directory per cluster directory (clusters of the same name may live in other state dirs).
fs::path cluster_cgroup(const fs::path& hierarchy, const fs::path& cluster_dir) {
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a: a short stable name for the path
  for (const unsigned char c : cluster_dir.string()) hash = (hash ^ c) * 1099511628211ull;
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(hash));
  return hierarchy / "yadokari-sim" / (cluster_dir.filename().string() + "-" + suffix);
}

void write(const fs::path& file, const std::string& value) {
  std::ofstream out(file);
  out << value;
  out.close();
  if (!out) throw SimError("cannot write " + value + " to " + file.string());
}

}  // namespace

double node_cpu_per_slot(const Cluster& cluster, const Node& node) {
  return node.cpu_per_slot > 0 ? node.cpu_per_slot : cluster.cpu_per_slot;
}

std::string node_cgroup(const Cluster& cluster, const Node& node) {
  if (node_cpu_per_slot(cluster, node) <= 0) return {};
  const fs::path hierarchy = cpu_hierarchy();
  if (hierarchy.empty()) return {};
  return (cluster_cgroup(hierarchy, cluster.dir) / node.id).string();
}

void limit_node_cpu(const Cluster& cluster, const Node& node) {
  const double cpu_per_slot = node_cpu_per_slot(cluster, node);
  if (cpu_per_slot <= 0) return;
  const fs::path hierarchy = cpu_hierarchy();
  if (hierarchy.empty())
    throw SimError("--cpu-per-slot needs a CPU cgroup controller (cgroup v1 'cpu' or v2 with 'cpu' enabled)", 2);
  const fs::path dir = node_cgroup(cluster, node);
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw SimError("cannot create the CPU cgroup " + dir.string() + ": " + error.message());
  if (!is_v1(hierarchy)) write(dir.parent_path() / "cgroup.subtree_control", "+cpu");
  const long quota = std::lround(node.slots * cpu_per_slot * kPeriodMicroseconds);
  if (is_v1(hierarchy)) {
    write(dir / "cpu.cfs_period_us", std::to_string(kPeriodMicroseconds));
    write(dir / "cpu.cfs_quota_us", std::to_string(quota));
  } else {
    write(dir / "cpu.max", std::to_string(quota) + " " + std::to_string(kPeriodMicroseconds));
  }
}

void remove_cpu_limits(const fs::path& cluster_dir) {
  const fs::path hierarchy = cpu_hierarchy();
  if (hierarchy.empty()) return;
  const fs::path dir = cluster_cgroup(hierarchy, cluster_dir);
  std::error_code error;
  if (!fs::exists(dir, error)) return;
  // A cgroup is removed with rmdir once empty (its control files go with it); killed processes
  // may take a moment to leave it.
  for (int attempt = 0; attempt < 40; ++attempt) {
    bool busy = false;
    for (const auto& node : fs::directory_iterator(dir, error))
      if (node.is_directory() && !fs::remove(node.path(), error)) busy = true;
    if (!busy) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  fs::remove(dir, error);
  fs::remove(dir.parent_path(), error);  // fails (ignored) while other clusters have limits
}

}  // namespace yadokari::sim
