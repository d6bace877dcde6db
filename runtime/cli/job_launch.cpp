#include "cli/job_launch.hpp"

#include <memory>

#include "cli/sim_placement.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "cli/child_process.hpp"
#include "cli/cli_error.hpp"
#include "cli/job_environment.hpp"
#include "cli/job_stopper.hpp"
#include "cli/shim_locator.hpp"
#include "cli/termination_signals.hpp"
#include "control/coordinator.hpp"
#include "control/job_registry.hpp"
#include "control/secret.hpp"

namespace yadokari::cli {
namespace {

constexpr std::chrono::milliseconds kServeInterval{50};

std::string path_variable() {
  const char* path = std::getenv("PATH");
  return path ? path : "";
}

std::string this_host() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// Pids of the ranks that registered from this host: the ones a stop can make sure of.
std::vector<pid_t> local_rank_pids(const control::Coordinator& coordinator) {
  std::vector<pid_t> pids;
  const std::string host = this_host();
  for (const auto& rank : coordinator.registrations())
    if (rank.hostname == host) pids.push_back(static_cast<pid_t>(rank.pid));
  return pids;
}

// Runs the launcher to its end while serving the control plane.
int supervise(pid_t launcher, TerminationSignals& signals, control::Coordinator& coordinator,
              const std::optional<std::uint64_t>& stop_after, const bool& stop_now) {
  int stopped_by = 0;
  try {
    for (;;) {
      coordinator.poll(kServeInterval);
      if (stop_now) {
        stop_whole_job(launcher, local_rank_pids(coordinator));
        std::fprintf(stderr,
                     "yadokari: stopped after epoch %llu as requested (--stop-after-epoch)\n",
                     static_cast<unsigned long long>(*stop_after));
        return kStoppedAfterEpoch;
      }
      while (auto received = signals.take()) {
        stopped_by = received->number;
        // A terminal's Ctrl-C already reached the launcher: it is in our process group.
        if (!received->from_terminal) kill(launcher, received->number);
      }
      if (auto code = try_reap(launcher)) {
        // Hydra sometimes reports success for a job it tore down on SIGTERM; a job that was
        // told to stop must not look like it finished.
        return *code == 0 && stopped_by != 0 ? 128 + stopped_by : *code;
      }
    }
  } catch (...) {
    kill(launcher, SIGTERM);  // do not leave a job running that nobody supervises
    throw;
  }
}

}  // namespace

std::string new_job_id() { return "yk-" + control::random_hex(4); }

int launch_job(const LaunchRequest& request) {
  const std::string path = path_variable();
  const std::string_view launcher_name = launch::launcher_name(request.flavour);
  const auto launcher = launch::find_in_path(launcher_name, path);
  if (!launcher)
    throw CliError(exit_code::not_found,
                   "launcher " + std::string(launcher_name) + " not found in PATH");
  const auto shim = locate_shim(request.flavour);
  if (request.job_file && request.checkpoint.dir)
    write_job_file(*request.checkpoint.dir, *request.job_file);

  TerminationSignals signals;  // before ZeroMQ starts its threads
  const std::string secret = control::random_hex(16);

  control::CoordinatorConfig config;
  config.job_id = request.job_id;
  config.secret = secret;
  config.app = request.shown_app;
  config.flavour = std::string(launch::flavour_name(request.flavour));
  config.world_size = request.ranks;
  const CheckpointSettings& ckpt = request.checkpoint;
  bool stop_now = false;
  if (ckpt.dir) {
    config.checkpoint = control::CoordinatorConfig::Checkpointing{
        *ckpt.dir, ckpt.keep, ckpt.compression, ckpt.interval_seconds};
    // Epochs are numbered by the directory, so "epoch K" may be passed over (a failed epoch
    // leaves no number behind, a restart continues the numbering): stop at the first commit
    // at or after K.
    config.on_epoch_end = [&stop_now, &ckpt](const control::EpochEnd& end) {
      if (end.committed && ckpt.stop_after_epoch && end.epoch >= *ckpt.stop_after_epoch)
        stop_now = true;
    };
  }
  // On a simulated cluster the nodes reach only the frontend's address: the coordinator's
  // sockets are made inside the frontend's network namespace.
  std::optional<SimPlacement> sim;
  if (request.sim) {
    sim = sim_placement(*request.sim, request.flavour);
    config.bind_host = sim->bind_address;
  }
  std::unique_ptr<control::Coordinator> coordinator_holder =
      sim ? in_network_namespace_of(sim->frontend_pid,
                                    [&] { return std::make_unique<control::Coordinator>(config); })
          : std::make_unique<control::Coordinator>(config);
  control::Coordinator& coordinator = *coordinator_holder;

  std::optional<control::PublishedJob> published;
  try {
    published.emplace(control::state_dir(),
                      control::JobRecord{request.job_id, getpid(), coordinator.status_endpoint(),
                                         secret, request.shown_app, config.flavour, request.ranks,
                                         control::utc_now_iso8601()});
  } catch (const control::RegistryError& e) {
    throw CliError(exit_code::failure, std::string("cannot publish the job: ") + e.what());
  }

  JobSettings settings{shim.string(),  config.flavour, coordinator.control_endpoint(),
                       request.job_id, secret,         request.rank_env};
  if (ckpt.dir) settings.extra.emplace_back("YADOKARI_CKPT_DIR", ckpt.dir->string());
  JobEnvironment env = make_job_environment(current_environment(), settings);
  if (sim)
    for (const auto& [name, value] : sim->environment) env.launcher_env.push_back(name + "=" + value);

  launch::LaunchPlan plan;
  plan.flavour = request.flavour;
  plan.launcher = *launcher;
  plan.ranks = request.ranks;
  plan.hosts = request.hosts;
  plan.running_as_root = geteuid() == 0;
  plan.forwarded_env = env.forwarded_names;
  plan.rank_only_env = {{"LD_PRELOAD", env.rank_ld_preload}};
  plan.mpi_args = request.mpi_args;
  plan.app_argv = {request.app.string()};
  plan.app_argv.insert(plan.app_argv.end(), request.args.begin(), request.args.end());

  std::vector<std::string> argv = launch::launcher_argv(plan);
  if (sim) {
    argv.insert(argv.begin() + 1, sim->launcher_args.begin(), sim->launcher_args.end());
    std::vector<std::string> prefix = sim->frontend_prefix;
    if (!prefix.empty() && prefix.front().find('/') == std::string::npos) {  // exec does not search PATH
      const auto found = launch::find_in_path(prefix.front(), path);
      if (!found) throw CliError(exit_code::not_found, prefix.front() + " not found in PATH");
      prefix.front() = found->string();
    }
    argv.insert(argv.begin(), prefix.begin(), prefix.end());
  }
  const pid_t child = spawn_process(argv, env.launcher_env);
  // A stop is only ever set from inside poll(), i.e. on this thread.
  return supervise(child, signals, coordinator, ckpt.stop_after_epoch, stop_now);
}

}  // namespace yadokari::cli
