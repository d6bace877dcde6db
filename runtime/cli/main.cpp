// yadokari: one binary, one subcommand per file (run_command, status_command, inspect_command,
// checkpoint_command, restart_command, sim_command); the job supervisor they start is runtime/frontend/.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <thread>

#include "runtime/agent/detector_priority.hpp"
#include "runtime/agent/node_agent.hpp"
#include "runtime/cli/checkpoint_command.hpp"
#include "runtime/cli/cli_error.hpp"
#include "runtime/cli/inspect_command.hpp"
#include "runtime/cli/restart_command.hpp"
#include "runtime/cli/run_command.hpp"
#include "runtime/cli/sim_command.hpp"
#include "runtime/cli/standin_command.hpp"
#include "runtime/cli/status_command.hpp"
#include "common/parameters.hpp"

namespace {

using namespace yadokari::cli;

// --interval, --stop-after-epoch, --keep, --compress, --full-every, --image-format (and --ckpt-dir), shared by
// run and restart.
void add_checkpoint_flags(CLI::App* command, CheckpointFlags& flags) {
  CLI::Option* ckpt_dir = command->add_option("--ckpt-dir", flags.ckpt_dir,
                                              "Checkpoint directory (env YADOKARI_CKPT_DIR); created if missing");
  command->parse_complete_callback([&flags, ckpt_dir] { flags.ckpt_dir_given = ckpt_dir->count() > 0; });
  command->add_option("--interval", flags.interval,
                      "Seconds between checkpoints, e.g. 30 or 0.5 (env YADOKARI_CKPT_INTERVAL; "
                      "0 = only when asked)");
  command->add_option("--stop-after-epoch", flags.stop_after_epoch,
                      "Stop the job (exit 75) once epoch K is committed (env YADOKARI_STOP_AFTER_EPOCH)");
  command->add_option("--keep", flags.keep, "Committed epochs to keep (env YADOKARI_KEEP, default 2)");
  command->add_option("--compress", flags.compress,
                      "zstd level for images, 0 = off (env YADOKARI_CKPT_COMPRESS, default 0)");
  command->add_option("--full-every", flags.full_every,
                      "A full image every N checkpoints of a rank, increments of the pages written in between "
                      "(env YADOKARI_CKPT_FULL_EVERY, default 8; 1 = full images only)");
  command->add_option("--image-format", flags.image_format,
                      "Image layout: yadokari, or dmtcp (memory areas in DMTCP's checkpoint layout, full images "
                      "only) (env YADOKARI_IMAGE_FORMAT, default yadokari)");
  command->add_option("--node-dir", flags.node_dir,
                      "Keep images on each node's local storage at this absolute path and replicate each "
                      "to a partner node before the epoch commits (env YADOKARI_NODE_DIR; needs node agents: --sim, "
                      "--hosts or --hostfile)");
}

// The automatic restart loop's choices (jobs on a simulated cluster, which have node agents).
void add_recovery_flags(CLI::App* command, RecoveryFlags& flags) {
  command->add_option("--policy", flags.policy,
                      "Placement after a node loss: node, balanced, comm, speed or auto "
                      "(env YADOKARI_POLICY, default balanced)");
  command->add_option("--max-restarts", flags.max_restarts,
                      "Automatic restarts before giving up (env YADOKARI_MAX_RESTARTS, default 3)");
  command->add_option("--max-oversubscribe", flags.max_oversubscribe,
                      "Ranks per slot a restart may place on a node (env YADOKARI_MAX_OVERSUBSCRIBE, default 2)");
  command->add_option("--port", flags.port,
                      "TCP port the job's coordinator listens on for ranks and node agents "
                      "(env YADOKARI_PORT, default: any free port)");
  command->add_option("--bind-address", flags.bind_address,
                      "Address of this host the coordinator listens on, reachable from every node "
                      "(env YADOKARI_BIND_ADDRESS; default 127.0.0.1 for local jobs, else this host's name's address)");
  command->add_flag(
      "--live-moves", flags.live_moves,
      "Move ranks live (yadokari migrate, rebalance, a draining node): the ranks that stay keep their processes; "
      "no checkpoint can be taken after such a move yet (env YADOKARI_LIVE_MOVES=on|off, default off)");
}

void add_run(CLI::App& app, RunOptions& options) {
  auto* run = app.add_subcommand("run", "Run an MPI program under yadokari");
  run->add_option("-n,--np", options.ranks, "Number of ranks")->required();
  run->add_option("--mpi", options.mpi, "MPI of the program: openmpi, mpich or auto (detect)")->capture_default_str();
  run->add_option("--hosts", options.hosts, "Hosts and slots: h1:slots,h2:slots (starts a node agent on each)");
  run->add_option("--hostfile", options.hostfile, "File of hosts: 'host slots=N' or 'host:N' per line (like --hosts)");
  run->add_option("--mpi-args", options.mpi_args, "Extra launcher arguments (shell-quoted)");
  run->add_option("--sim", options.sim, "Run on the simulated cluster NAME (yadokari sim up)");
  add_checkpoint_flags(run, options.checkpoint);
  run->add_flag("--fresh", options.fresh,
                "Start over even if --ckpt-dir holds epochs of an earlier run (they are deleted once this run "
                "commits one); without it the same program, arguments and -n continue from the newest");
  add_recovery_flags(run, options.recovery);
  run->add_option("command", options.command, "APP [ARGS...] (put -- before APP if it has options)")->required();
  // Everything from APP on belongs to the application, even words that look like options.
  run->positionals_at_end();
}

void add_status(CLI::App& app, StatusOptions& options) {
  auto* status = app.add_subcommand("status", "Show what the ranks of a running job are doing");
  status->add_option("--job", options.job, "Job id (default: the only running job)");
  status->add_flag("--json", options.json, "Print JSON instead of a table");
}

void add_checkpoint(CLI::App& app, CheckpointOptions& options) {
  auto* checkpoint = app.add_subcommand("checkpoint", "Take a checkpoint of a running job now");
  checkpoint->add_option("--job", options.job, "Job id (default: the only running job)");
}

void add_rebalance(CLI::App& app, CheckpointOptions& options) {
  auto* rebalance =
      app.add_subcommand("rebalance", "Checkpoint a running job and restart it placed anew on the nodes alive now");
  rebalance->add_option("--job", options.job, "Job id (default: the only running job)");
}

void add_migrate(CLI::App& app, MigrateOptions& options) {
  auto* migrate = app.add_subcommand(
      "migrate", "Move some ranks of a running job to another node; the other ranks stay where they run");
  migrate->add_option("--ranks", options.ranks, "Logical ranks to move, comma-separated (e.g. 2,3)")
      ->delimiter(',')
      ->required();
  migrate->add_option("--to", options.to, "The node they go to (e.g. n4)")->required();
  migrate->add_flag("--live", options.live,
                    "The other ranks keep their processes (they swap their MPI library); they cannot checkpoint "
                    "again in this run");
  migrate->add_option("--job", options.job, "Job id (default: the only running job)");
}

// Started by a launch in place of a kept rank (a live move); not for users, hence hidden.
void add_stand_in(CLI::App& app, StandInOptions& options) {
  auto* stand_in = app.add_subcommand("stand-in", "Stand in for a kept process as a rank of a new launch");
  stand_in->group("");
  stand_in->add_option("--dir", options.dir, "Where kept processes listen (DIR/rank-R.sock)")->required();
  stand_in->add_option("--timeout", options.timeout, "Seconds to wait for the kept process's socket");
}

// hosts/mpi_args are optional<string>: given (even empty) overrides job.json.
struct RestartArgs {
  std::string hosts;
  std::string mpi_args;
  CLI::App* command = nullptr;
};

void add_restart(CLI::App& app, RestartOptions& options, RestartArgs& args) {
  auto* restart =
      app.add_subcommand("restart", "Restart a job from the newest usable epoch in its checkpoint directory");
  add_checkpoint_flags(restart, options.checkpoint);
  add_recovery_flags(restart, options.recovery);
  restart->add_option("-n,--np", options.ranks, "Number of ranks (must equal the checkpoint's)");
  restart->add_option("--hosts", args.hosts, "Hosts and slots (default: as in job.json)");
  restart->add_option("--mpi-args", args.mpi_args, "Extra launcher arguments (default: as in job.json)");
  restart->add_option("--rank-map", options.rank_map, "Comma list: real rank i hosts logical rank LIST[i]");
  restart->add_option("--sim", options.sim, "Run on the simulated cluster NAME (its live nodes)");
  args.command = restart;
}

void add_inspect(CLI::App& app, InspectOptions& options) {
  auto* inspect = app.add_subcommand("inspect", "Show the header and areas of a checkpoint image");
  inspect->add_option("image", options.image, "Image file (ckpt/<epoch>/rank-<L>.img, or a DMTCP ckpt_*.dmtcp)")
      ->required();
  inspect->add_flag("--verify", options.verify, "Read every area and check its checksum");
  inspect->add_flag("--json", options.json, "Print JSON instead of a table");
}

// Started by the front end on every node of a job (runtime/agent); not for users, hence hidden.
void add_agent(CLI::App& app, yadokari::agent::AgentOptions& options, bool& credentials_stdin) {
  auto* agent = app.add_subcommand("agent", "Node agent of a running job (started by yadokari)");
  agent->group("");
  agent->add_option("--coordinator", options.coordinator, "Control endpoint tcp://host:port")->required();
  agent->add_option("--node", options.node, "This node's id in the job")->required();
  agent->add_option("--node-dir", options.node_dir, "This node's checkpoint image storage");
  agent->add_flag("--credentials-stdin", credentials_stdin,
                  "Read 'JOB_ID SECRET' from stdin and end when stdin closes (agents started over ssh)");
}

// `yadokari join`: this host joins a running job as a new node (usable at its next restart or
// rebalance); the agent runs in the foreground until the job ends.
void add_join(CLI::App& app, yadokari::agent::AgentOptions& options) {
  auto* join =
      app.add_subcommand("join", "Join this host to a running job as a node (its agent runs until the job ends)");
  join->add_option("--coordinator", options.coordinator,
                   "The job's control endpoint, tcp://ADDRESS:PORT (run the job with --port to know it)")
      ->required();
  join->add_option("--slots", options.join_slots, "Ranks this node may host (default: its CPU count)");
  join->add_option("--node", options.node, "Name of this node in the job (default: its hostname)");
  join->add_option("--node-dir", options.node_dir, "This node's checkpoint image storage (as the job's --node-dir)");
}

int join_job(yadokari::agent::AgentOptions options) {
  const char* job = std::getenv(yadokari::parameters::kJobId);
  const char* credential = std::getenv(yadokari::parameters::kJobSecret);
  if (!job || !*job || !credential || !*credential)
    throw CliError(exit_code::usage,
                   "join needs YADOKARI_JOB_ID and YADOKARI_JOB_SECRET in its environment (the job's record on its "
                   "front end: $YADOKARI_STATE_DIR/jobs/<id>.json, fields job_id and credential)");
  if (options.join_slots < 0) throw CliError(exit_code::usage, "--slots must be at least 1");
  if (options.join_slots == 0)
    options.join_slots = static_cast<std::int32_t>(std::max(1u, std::thread::hardware_concurrency()));
  if (options.node.empty()) {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    options.node = name;
  }
  options.job_id = job;
  options.credential = credential;
  std::fprintf(stderr, "yadokari: node %s joins job %s at %s with %d slots\n", options.node.c_str(), job,
               options.coordinator.c_str(), options.join_slots);
  return yadokari::agent::run_node_agent(options);
}

int run_agent(yadokari::agent::AgentOptions options, bool credentials_stdin) {
  yadokari::agent::take_own_scheduling_group();
  if (credentials_stdin) {
    options.end_on_eof_fd = 0;
    std::string line;
    if (!std::getline(std::cin, line) || line.find(' ') == std::string::npos)
      throw CliError(exit_code::usage,
                     "agent --credentials-stdin needs 'JOB_ID CREDENTIAL' on its first line of stdin");
    options.job_id = line.substr(0, line.find(' '));
    options.credential = line.substr(line.find(' ') + 1);
    return yadokari::agent::run_node_agent(options);
  }
  const char* job = std::getenv(yadokari::parameters::kJobId);
  const char* credential = std::getenv(yadokari::parameters::kJobSecret);
  if (!job || !credential)
    throw CliError(exit_code::usage, "agent needs YADOKARI_JOB_ID and YADOKARI_JOB_SECRET in its environment");
  options.job_id = job;
  options.credential = credential;
  return yadokari::agent::run_node_agent(options);
}

// Each line with the prefix: a refused checkpoint names one problem per line.
int report(const std::string& message, int code) {
  std::size_t start = 0;
  do {
    const std::size_t end = std::min(message.find('\n', start), message.size());
    std::fprintf(stderr, "yadokari: %.*s\n", static_cast<int>(end - start), message.data() + start);
    start = end + 1;
  } while (start < message.size());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"yadokari: fault-tolerant runtime for MPI programs", "yadokari"};
  app.set_version_flag("--version", "yadokari " YADOKARI_VERSION);
  app.require_subcommand(1);
  RunOptions run_options;
  StatusOptions status_options;
  add_run(app, run_options);
  add_status(app, status_options);
  InspectOptions inspect_options;
  add_inspect(app, inspect_options);
  CheckpointOptions checkpoint_options;
  add_checkpoint(app, checkpoint_options);
  CheckpointOptions rebalance_options;
  add_rebalance(app, rebalance_options);
  MigrateOptions migrate_options;
  add_migrate(app, migrate_options);
  RestartOptions restart_options;
  RestartArgs restart_args;
  add_restart(app, restart_options, restart_args);
  SimOptions sim_options;
  add_sim(app, sim_options);
  yadokari::agent::AgentOptions agent_options;
  bool agent_credentials_stdin = false;
  add_agent(app, agent_options, agent_credentials_stdin);
  yadokari::agent::AgentOptions join_options;
  add_join(app, join_options);
  StandInOptions stand_in_options;
  add_stand_in(app, stand_in_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return report(e.what(), exit_code::usage);
  }

  // A job's front end reads SIGUSR1 as "checkpoint, then stop" (frontend/signal_checkpoint.hpp) once it
  // runs; blocked from here on, one sent while it gets there (Slurm's, however early) waits for it
  // instead of killing it. Children get an empty mask (frontend/child_process.cpp).
  if (app.got_subcommand("run") || app.got_subcommand("restart")) {
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, nullptr);
  }
  try {
    if (app.got_subcommand("run")) return run_job(run_options);
    if (app.got_subcommand("inspect")) return inspect_image(inspect_options);
    if (app.got_subcommand("checkpoint")) return take_checkpoint(checkpoint_options);
    if (app.got_subcommand("rebalance")) return rebalance_job(rebalance_options);
    if (app.got_subcommand("migrate")) return migrate_ranks(migrate_options);
    if (app.got_subcommand("sim")) return run_sim(sim_options);
    if (app.got_subcommand("agent")) return run_agent(agent_options, agent_credentials_stdin);
    if (app.got_subcommand("join")) return join_job(join_options);
    if (app.got_subcommand("stand-in")) return stand_in(stand_in_options);
    if (app.got_subcommand("restart")) {
      if (restart_args.command->count("--hosts")) restart_options.hosts = restart_args.hosts;
      if (restart_args.command->count("--mpi-args")) restart_options.mpi_args = restart_args.mpi_args;
      return restart_job(restart_options);
    }
    return show_status(status_options);
  } catch (const CliError& e) {
    return report(e.what(), e.exit_code());
  } catch (const yadokari::frontend::FrontendError& e) {
    return report(e.what(), exit_code_of(e.kind()));
  } catch (const std::exception& e) {
    return report(e.what(), exit_code::failure);
  }
}
