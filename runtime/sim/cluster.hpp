#pragma once
// A simulated cluster: what `yadokari sim up` built and state.json records. Each node is a
// long-lived holder process whose network, UTS, IPC and mount namespaces *are* the node; a
// "switch" holder (network namespace only) owns the bridge every node's veth is plugged into;
// the "frontend" is a node without slots from which launchers (mpirun, mpiexec) reach the nodes.
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <cstdint>
#include <string>
#include <vector>

namespace yadokari::sim {

inline constexpr const char* kDefaultName = "sim";
inline constexpr const char* kSubnet = "10.213.0.0/24";  // exists only inside the cluster's namespaces
inline constexpr int kMaxNodes = 250;                    // 10.213.0.1 .. 10.213.0.250
inline constexpr const char* kFrontendId = "fe";         // frontend: 10.213.0.254

struct Node {
  std::string id;             // "n1", ..., or "fe" for the frontend
  std::string hostname;       // "yk<name>-n1", "yk<name>-fe"
  std::string address;        // "10.213.0.1"
  int slots = 0;              // 0 for the frontend
  pid_t pid = 0;              // holder process; 0 = not started
  std::string netns;          // readlink /proc/<pid>/ns/net when it was started ("net:[4026532...]")
  bool alive = false;         // false once `sim kill` took it down (or before it was started)
  double cpu_per_slot = 0.0;  // this node's own CPU limit (sim add --cpu-per-slot); 0 = the cluster's
  // Announced as leaving (`sim drain`): jobs move their ranks off it and place none there.
  bool draining = false;
  std::uint64_t drain_id = 0;  // which `sim drain` (a random number), so that jobs' answers are told apart
};

struct Cluster {
  std::string name;
  std::filesystem::path dir;  // state directory
  int slots = 0;
  std::string link;           // netem arguments applied on every node's eth0, "" = none
  double cpu_per_slot = 0.0;  // CPUs per slot each node may use (sim/cpu_limit.hpp); 0 = no limit
  bool slurm = false;         // Slurm's daemons run on it (sim up --slurm, sim/slurm_daemons.hpp)
  Node switch_holder;         // id "switch": the bridge's namespace (no address, no hostname)
  Node frontend;
  std::vector<Node> nodes;

  std::filesystem::path state_file() const { return dir / "state.json"; }
  std::filesystem::path hosts_file() const { return dir / "hosts"; }
  std::filesystem::path hostfile_openmpi() const { return dir / "hostfile.openmpi"; }
  std::filesystem::path hostfile_mpich() const { return dir / "hostfile.mpich"; }
  std::filesystem::path agent() const { return dir / "agent"; }
};

// Throws SimError (exit 2) unless `name` is 1 to 12 lowercase letters or digits.
void check_cluster_name(const std::string& name);

// A cluster description with nodes n1..nN (addresses, hostnames), nothing started yet.
Cluster plan_cluster(const std::string& name, const std::filesystem::path& dir, int nodes, int slots,
                     const std::string& link);

// The node (or frontend) called `what`: its id ("n2"), hostname or address; nullptr if none.
Node* find_node(Cluster& cluster, const std::string& what);

// "yksim-n1, yksim-n2" (compute nodes only).
std::string node_names(const Cluster& cluster);

// The holder is running and still the process that was started (same network namespace).
bool holder_running(const Node& node);

}  // namespace yadokari::sim
