#include "runtime/sim/slurm_daemons.hpp"

#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "runtime/sim/command.hpp"
#include "runtime/sim/cpu_limit.hpp"
#include "runtime/sim/sim_error.hpp"
#include "runtime/sim/state_file.hpp"

namespace yadokari::sim {
namespace {

namespace fs = std::filesystem;

// The partition is a node set by feature, so that a dynamic node (`sim add`) that registers with
// this feature joins it without a restart of slurmctld (docs/platform.md §6).
std::string feature(const Cluster& cluster) { return "yk" + cluster.name; }

fs::path etc_dir(const Cluster& cluster) { return slurm_dir(cluster) / "etc"; }
fs::path munge_socket(const Cluster& cluster) { return slurm_dir(cluster) / "munge.socket"; }
// The daemons are given it by its own path (the same file as their /etc/slurm/slurm.conf): their
// command lines then name the cluster they belong to.
fs::path config_file(const Cluster& cluster) { return etc_dir(cluster) / "slurm.conf"; }

// argv run inside every namespace of `node` (as `sim exec` does), in its CPU cgroup if it has one,
// so that what slurmd starts there — the job steps — is charged to the node.
std::vector<std::string> in_node(const Cluster& cluster, const Node& node, const std::vector<std::string>& argv) {
  std::vector<std::string> full{"nsenter", "-t", std::to_string(node.pid), "-n", "-u", "-i", "-m", "--wd=/", "--"};
  const std::string cgroup = node.slots > 0 ? node_cgroup(cluster, node) : std::string();
  if (!cgroup.empty()) {
    full.insert(full.end(), {"sh", "-c", "echo $$ > \"$0\"/cgroup.procs && exec \"$@\"", cgroup});
  }
  full.insert(full.end(), argv.begin(), argv.end());
  return full;
}

// The node's configuration as /etc/slurm, in its own mount namespace only.
void mount_config(const Cluster& cluster, const Node& node) {
  run_checked({"nsenter", "-t", std::to_string(node.pid), "-m", "--", "mount", "--bind", etc_dir(cluster).string(),
               "/etc/slurm"});
}

void write_key(const Cluster& cluster) {
  std::ifstream random("/dev/urandom", std::ios::binary);
  std::string key(1024, '\0');
  if (!random.read(key.data(), static_cast<std::streamsize>(key.size()))) throw SimError("cannot read /dev/urandom");
  write_file(slurm_dir(cluster) / "munge.key", key, 0400);  // munged refuses a key others can read
}

// sinfo's state of each node by name ("idle", "down*", ...), asked on the frontend.
std::map<std::string, std::string> node_states(const Cluster& cluster) {
  const auto result = run_command(in_node(cluster, cluster.frontend, {"sinfo", "-h", "-N", "-o", "%N %T"}));
  std::map<std::string, std::string> states;
  if (result.exit_code != 0) return states;
  std::istringstream lines(result.output);
  std::string name, state;
  while (lines >> name >> state) states[name] = state;
  return states;
}

// Until each of `nodes` answers slurmctld (idle, or busy with a job), for at most 30 s.
void wait_registered(const Cluster& cluster, const std::vector<const Node*>& nodes) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    const auto states = node_states(cluster);
    std::string waiting;
    for (const Node* node : nodes) {
      const auto found = states.find(node->hostname);
      const std::string state = found == states.end() ? "unknown" : found->second;
      const bool ready = (state == "idle" || state == "mixed" || state == "allocated");
      if (!ready) waiting += (waiting.empty() ? "" : ", ") + node->hostname + " (" + state + ")";
    }
    if (waiting.empty()) return;
    if (std::chrono::steady_clock::now() > deadline) {
      throw SimError("Slurm nodes did not register within 30 s: " + waiting + "; see the logs in " +
                     slurm_dir(cluster).string());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

bool pid_file_alive(const fs::path& file) {
  std::ifstream in(file);
  long pid = 0;
  return (in >> pid) && pid > 0 && kill(static_cast<pid_t>(pid), 0) == 0;
}

void start_slurmd(const Cluster& cluster, const Node& node, bool dynamic) {
  mount_config(cluster, node);
  fs::create_directories(slurm_dir(cluster) / node.hostname / "spool");
  std::vector<std::string> argv{"slurmd", "-f", config_file(cluster).string(), "-N", node.hostname};
  if (dynamic)
    argv.insert(argv.end(), {"-Z", "--conf", "CPUs=" + std::to_string(node.slots) + " Feature=" + feature(cluster)});
  run_checked(in_node(cluster, node, argv));
}

}  // namespace

fs::path slurm_dir(const Cluster& cluster) { return cluster.dir / "slurm"; }

void check_slurm_tools() {
  require_tool("munged", "munge");
  require_tool("slurmctld", "slurmctld");
  require_tool("slurmd", "slurmd");
  require_tool("sinfo", "slurm-client");
  if (!fs::is_directory("/etc/slurm")) throw SimError("/etc/slurm does not exist (install slurm-client)", 127);
}

std::string slurm_config(const Cluster& cluster) {
  const std::string dir = slurm_dir(cluster).string();
  std::string conf = "# Written by yadokari sim up --slurm for the simulated cluster " + cluster.name +
                     " (do not edit).\n"
                     "ClusterName=yk" +
                     cluster.name + "\nSlurmctldHost=" + cluster.frontend.hostname + "(" + cluster.frontend.address +
                     ")\n"
                     "SlurmUser=root\nSlurmdUser=root\n"
                     "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" +
                     munge_socket(cluster).string() +
                     "\n"
                     "StateSaveLocation=" +
                     dir + "/ctld\nSlurmctldPidFile=" + dir + "/slurmctld.pid\nSlurmctldLogFile=" + dir +
                     "/slurmctld.log\n"
                     "SlurmdSpoolDir=" +
                     dir + "/%n/spool\nSlurmdPidFile=" + dir + "/%n/slurmd.pid\nSlurmdLogFile=" + dir +
                     "/%n/slurmd.log\n"
                     // No cgroup plugins: process tracking by process group, no task binding.
                     "ProctrackType=proctrack/pgid\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
                     "AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n"
                     "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
                     // A node's CPUs are its slots, however many cores this host has.
                     "SlurmdParameters=config_overrides\n"
                     "MpiDefault=none\nReturnToService=2\n"
                     // A node that stops answering is DOWN after SlurmdTimeout (docs/platform.md §6).
                     "SlurmdTimeout=5\nSlurmctldTimeout=10\nMessageTimeout=5\nInactiveLimit=0\nKillWait=5\n"
                     // Every node talks to slurmctld directly; room for nodes added later.
                     "TreeWidth=65533\nMaxNodeCount=" +
                     std::to_string(kMaxNodes) + "\n";
  for (const auto& node : cluster.nodes) {
    conf += "NodeName=" + node.hostname + " NodeAddr=" + node.address + " CPUs=" + std::to_string(node.slots) +
            " Feature=" + feature(cluster) + " State=UNKNOWN\n";
  }
  conf += "NodeSet=nodes Feature=" + feature(cluster) + "\n";
  conf += "PartitionName=main Nodes=nodes Default=YES MaxTime=INFINITE State=UP\n";
  return conf;
}

void start_slurm(const Cluster& cluster) {
  check_slurm_tools();
  fs::create_directories(etc_dir(cluster));
  fs::create_directories(slurm_dir(cluster) / "ctld");
  write_key(cluster);
  write_file(config_file(cluster), slurm_config(cluster));
  const std::string dir = slurm_dir(cluster).string();
  run_checked(in_node(
      cluster, cluster.frontend,
      {"munged", "--key-file=" + dir + "/munge.key", "--socket=" + munge_socket(cluster).string(),
       "--pid-file=" + dir + "/munged.pid", "--log-file=" + dir + "/munged.log", "--seed-file=" + dir + "/munged.seed",
       // Accepts a state directory only root may enter (a private mktemp -d, mode 0700),
       // which munged otherwise refuses as its socket's place; only root uses it here.
       "--force"}));
  mount_config(cluster, cluster.frontend);
  run_checked(in_node(cluster, cluster.frontend, {"slurmctld", "-f", config_file(cluster).string()}));
  std::vector<const Node*> live;
  for (const auto& node : cluster.nodes) {
    if (!node.alive) continue;
    start_slurmd(cluster, node, false);
    live.push_back(&node);
  }
  wait_registered(cluster, live);
}

void start_slurm_node(const Cluster& cluster, const Node& node) {
  start_slurmd(cluster, node, true);
  wait_registered(cluster, {&node});
}

bool slurm_running(const Cluster& cluster) {
  return pid_file_alive(slurm_dir(cluster) / "slurmctld.pid") && pid_file_alive(slurm_dir(cluster) / "munged.pid");
}

}  // namespace yadokari::sim
