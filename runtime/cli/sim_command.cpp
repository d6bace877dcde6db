#include "runtime/cli/sim_command.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/cli/cli_error.hpp"
#include "runtime/cli/sim_drain.hpp"
#include "runtime/sim/cluster.hpp"
#include "runtime/sim/command.hpp"
#include "runtime/sim/launch_settings.hpp"
#include "runtime/sim/lifecycle.hpp"
#include "runtime/sim/sim_error.hpp"
#include "runtime/sim/state_file.hpp"

namespace yadokari::cli {

namespace {

using sim::Cluster;
using sim::Node;

void print_table(const Cluster& cluster) {
  char cpu[64] = "";
  if (cluster.cpu_per_slot > 0) std::snprintf(cpu, sizeof cpu, ", %g CPU per slot", cluster.cpu_per_slot);
  std::printf("cluster %s: %zu nodes x %d slots%s%s%s, state in %s\n", cluster.name.c_str(), cluster.nodes.size(),
              cluster.slots, cluster.link.empty() ? "" : (", link '" + cluster.link + "'").c_str(), cpu,
              cluster.slurm ? ", Slurm" : "", cluster.dir.c_str());
  std::printf("%-6s %-20s %-14s %5s  %s\n", "NODE", "HOSTNAME", "ADDRESS", "SLOTS", "STATE");
  auto row = [](const Node& node, const std::string& slots) {
    char own[64] = "";  // a node added with a CPU limit of its own
    if (node.cpu_per_slot > 0) std::snprintf(own, sizeof own, "  (%g CPU per slot)", node.cpu_per_slot);
    std::printf("%-6s %-20s %-14s %5s  %s%s\n", node.id.c_str(), node.hostname.c_str(), node.address.c_str(),
                slots.c_str(), sim::node_state(node).c_str(), own);
  };
  for (const auto& node : cluster.nodes) row(node, std::to_string(node.slots));
  row(cluster.frontend, "-");
}

nlohmann::json cluster_json(const Cluster& cluster) {
  nlohmann::json state = sim::to_json(cluster);
  for (auto& node : state["nodes"]) {
    node["state"] = sim::node_state(*sim::find_node(const_cast<Cluster&>(cluster), node["node"].get<std::string>()));
  }
  state["frontend"]["state"] = sim::node_state(cluster.frontend);
  state["switch"]["state"] = sim::holder_running(cluster.switch_holder) ? "up" : "lost";
  return state;
}

int sim_up(const SimOptions& options) {
  const auto result =
      sim::bring_up(options.name, options.nodes, options.slots, options.link, options.cpu_per_slot, options.slurm);
  if (!result.replaced.empty()) {
    std::printf("replaced the existing cluster %s: %s\n", options.name.c_str(), result.replaced.c_str());
  }
  std::printf("%s cluster %s\n", result.reused ? "reusing the running" : "started", options.name.c_str());
  print_table(result.cluster);
  return 0;
}

int sim_list(const SimOptions& options, bool name_given) {
  std::vector<Cluster> clusters;
  if (name_given) {
    clusters.push_back(sim::load_cluster(options.name));
  } else {
    for (const auto& name : sim::cluster_names()) {
      if (auto cluster = sim::load_state(sim::cluster_dir(name))) clusters.push_back(*cluster);
    }
  }
  if (options.json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& cluster : clusters) all.push_back(cluster_json(cluster));
    std::printf("%s\n", nlohmann::json{{"clusters", all}}.dump(2).c_str());
    return 0;
  }
  if (clusters.empty()) std::printf("no simulated clusters in %s\n", sim::clusters_base_dir().c_str());
  for (size_t i = 0; i < clusters.size(); ++i) {
    if (i > 0) std::printf("\n");
    print_table(clusters[i]);
  }
  return 0;
}

int sim_kill(const SimOptions& options) {
  const auto result = sim::kill_node(options.name, options.node);
  if (result.already_down) {
    std::printf("%s is already down\n", result.hostname.c_str());
  } else {
    std::printf("killed %s (%d processes)\n", result.hostname.c_str(), result.processes);
  }
  return 0;
}

int sim_add(const SimOptions& options) {
  const Node node = sim::add_node(options.name, options.slots, options.cpu_per_slot);
  char cpu[64] = "";
  if (node.cpu_per_slot > 0) std::snprintf(cpu, sizeof cpu, ", %g CPU per slot", node.cpu_per_slot);
  std::printf("added %s (%s, %d slots%s)\n", node.hostname.c_str(), node.address.c_str(), node.slots, cpu);
  return 0;
}

int sim_down(const SimOptions& options) {
  if (sim::tear_down(options.name)) {
    std::printf("removed cluster %s\n", options.name.c_str());
  } else {
    std::printf("no cluster %s to remove\n", options.name.c_str());
  }
  return 0;
}

// Replaces this process with nsenter into the node, so the exit code is the command's.
int sim_exec(const SimOptions& options) {
  sim::check_can_manage();
  Cluster cluster = sim::load_cluster(options.name);
  const Node* node = sim::find_node(cluster, options.node);
  if (!node) {
    throw CliError(exit_code::failure, "cluster " + options.name + " has no node " + options.node + " (nodes: " +
                                           sim::node_names(cluster) + ", frontend " + cluster.frontend.hostname + ")");
  }
  const std::string state = sim::node_state(*node);
  if (state != "up" && state != "draining") {
    throw CliError(exit_code::failure,
                   "node " + node->hostname + " of cluster " + options.name + " is " + state +
                       (state == "down" ? " (killed with yadokari sim kill)" : " (its holder process is gone)"));
  }
  std::error_code error;
  const auto cwd = std::filesystem::current_path(error);
  std::vector<std::string> argv{"nsenter",
                                "-t",
                                std::to_string(node->pid),
                                "-n",
                                "-u",
                                "-i",
                                "-m",
                                "--wd=" + (error ? std::string("/") : cwd.string()),
                                "--"};
  auto command = options.command.begin();
  if (command != options.command.end() && *command == "--") ++command;  // CLI11 may keep the separator
  if (command == options.command.end()) throw CliError(exit_code::usage, "sim exec needs a command after --");
  argv.insert(argv.end(), command, options.command.end());
  std::vector<char*> args;
  for (auto& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  std::fflush(stdout);
  execvp(args[0], args.data());
  throw CliError(exit_code::not_found, std::string("cannot run nsenter: ") + std::strerror(errno));
}

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (const char c : word) quoted += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

int sim_env(const SimOptions& options) {
  const auto flavour = launch::parse_flavour(options.mpi);
  if (!flavour) throw CliError(exit_code::usage, "--mpi must be openmpi or mpich, not '" + options.mpi + "'");
  const Cluster cluster = sim::load_cluster(options.name);
  const auto settings = sim::launch_settings(cluster, *flavour, options.job_dir);
  std::printf("# eval \"$(yadokari sim env --mpi %s --name %s)\", then:\n", options.mpi.c_str(), options.name.c_str());
  std::printf("#   $sim_launch %s $sim_launcher_args -n N APP...\n",
              *flavour == launch::MpiFlavour::openmpi ? "mpirun.openmpi" : "mpiexec.mpich");
  for (const auto& [name, value] : settings.environment) {
    std::printf("export %s=%s\n", name.c_str(), shell_quote(value).c_str());
  }
  std::printf("sim_launch=%s\n", shell_quote(sim::join_words(settings.frontend_prefix)).c_str());
  std::printf("sim_launcher_args=%s\n", shell_quote(sim::join_words(settings.launcher_args)).c_str());
  return 0;
}

}  // namespace

CLI::App* add_sim(CLI::App& app, SimOptions& options) {
  auto* sim = app.add_subcommand("sim", "A simulated cluster of namespace nodes on this host (needs root)");
  sim->require_subcommand(1);
  auto add_name = [&](CLI::App* command) { command->add_option("--name", options.name, "Cluster name (default sim)"); };
  options.up = sim->add_subcommand("up", "Create the cluster (or reuse a healthy one of the same shape)");
  options.up->add_option("--nodes", options.nodes, "Number of nodes")->required();
  options.up->add_option("--slots", options.slots, "Slots per node (default 1)");
  options.up->add_option("--link", options.link,
                         "every node's link: \"rate 15mbit\" (token bucket, any kernel) or netem arguments, e.g. "
                         "\"rate 15mbit delay 5ms\" (needs sch_netem)");
  options.up->add_option("--cpu-per-slot", options.cpu_per_slot,
                         "CPUs each slot of a node may use, e.g. 0.25 (a CPU cgroup per node; default 0 = no limit)");
  options.up->add_flag("--slurm", options.slurm,
                       "Run Slurm on it: munged and slurmctld on the frontend, a slurmd on every node "
                       "(sim exec fe -- sbatch ...)");
  add_name(options.up);
  options.list = sim->add_subcommand("list", "Show the clusters and their nodes");
  options.list->add_flag("--json", options.json, "Print JSON instead of a table");
  add_name(options.list);
  options.kill = sim->add_subcommand("kill", "Kill every process of a node (a crash) and mark it down");
  options.kill->add_option("node", options.node, "Node: n2, its hostname or address")->required();
  add_name(options.kill);
  options.drain = sim->add_subcommand(
      "drain", "A node leaves: the jobs move their ranks off it, then it is taken down (no restart of a job)");
  options.drain->add_option("node", options.node, "Node: n2, its hostname or address")->required();
  options.drain->add_option("--timeout", options.timeout_s,
                            "Seconds to wait for the jobs to move their ranks off it (default 600); then the node "
                            "stays up, not draining");
  add_name(options.drain);
  options.add = sim->add_subcommand("add", "Add a node to a running cluster (jobs with agents see it join)");
  options.add->add_option("--slots", options.slots, "Slots of the new node (default: the cluster's)");
  options.add->add_option("--cpu-per-slot", options.cpu_per_slot,
                          "CPUs each slot of the new node may use (its own CPU cgroup; default: the cluster's limit)");
  add_name(options.add);
  options.down = sim->add_subcommand("down", "Remove the cluster: processes, namespaces, state");
  add_name(options.down);
  options.exec = sim->add_subcommand("exec", "Run a command inside a node (or the frontend, fe)");
  options.exec->add_option("node", options.node, "Node: n1, fe, a hostname or address")->required();
  options.exec->add_option("command", options.command, "-- CMD [ARGS...]")->required();
  add_name(options.exec);
  options.env = sim->add_subcommand("env", "Print the shell settings to launch an MPI job on the cluster");
  options.env->add_option("--mpi", options.mpi, "openmpi or mpich")->required();
  options.env->add_option("--job-dir", options.job_dir, "Open MPI session/shared-memory directory");
  add_name(options.env);
  return sim;
}

int run_sim(const SimOptions& options) {
  try {
    if (options.up->parsed()) return sim_up(options);
    if (options.list->parsed()) return sim_list(options, options.list->count("--name") > 0);
    if (options.kill->parsed()) return sim_kill(options);
    if (options.drain->parsed()) return sim_drain(options.name, options.node, options.timeout_s);
    if (options.add->parsed()) {
      SimOptions add = options;
      if (!options.add->count("--slots")) add.slots = 0;  // the cluster's
      return sim_add(add);
    }
    if (options.down->parsed()) return sim_down(options);
    if (options.exec->parsed()) return sim_exec(options);
    return sim_env(options);
  } catch (const sim::SimError& e) {
    throw CliError(e.exit_code(), e.what());
  }
}

}  // namespace yadokari::cli
