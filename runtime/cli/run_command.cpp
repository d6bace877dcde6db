#include "cli/run_command.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "cli/app_resolver.hpp"
#include "cli/child_process.hpp"
#include "cli/cli_error.hpp"
#include "cli/flavour_choice.hpp"
#include "cli/job_environment.hpp"
#include "cli/shim_locator.hpp"
#include "cli/termination_signals.hpp"
#include "control/coordinator.hpp"
#include "control/job_registry.hpp"
#include "control/secret.hpp"
#include "launch/launcher.hpp"

namespace yadokari::cli {
namespace {

constexpr std::chrono::milliseconds kServeInterval{50};

std::string path_variable() {
  const char* path = std::getenv("PATH");
  return path ? path : "";
}

struct CheckedInput {
  std::optional<launch::MpiFlavour> wanted_flavour;
  std::vector<launch::HostSlots> hosts;
  std::vector<std::string> mpi_args;
};

CheckedInput check_options(const RunOptions& options) {
  if (options.ranks < 1) throw CliError(exit_code::usage, "-n must be at least 1");
  if (options.command.empty()) throw CliError(exit_code::usage, "no application given");
  CheckedInput input;
  input.wanted_flavour = requested_flavour(options.mpi);
  try {
    if (!options.hosts.empty()) input.hosts = launch::parse_hosts(options.hosts);
    input.mpi_args = launch::split_shell_words(options.mpi_args);
    return input;
  } catch (const launch::LaunchError& e) {
    throw CliError(exit_code::usage, e.what());
  }
}

// Runs the launcher to its end while serving the control plane.
int supervise(pid_t launcher, TerminationSignals& signals, control::Coordinator& coordinator) {
  int stopped_by = 0;
  try {
    for (;;) {
      coordinator.poll(kServeInterval);
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

int run_job(const RunOptions& options) {
  const CheckedInput input = check_options(options);
  const std::string path = path_variable();
  const std::string& shown_app = options.command.front();
  const auto app = resolve_app(shown_app, path);
  const launch::MpiFlavour flavour = choose_flavour(app, shown_app, input.wanted_flavour);
  const std::string_view launcher_name = launch::launcher_name(flavour);
  const auto launcher = launch::find_in_path(launcher_name, path);
  if (!launcher)
    throw CliError(exit_code::not_found,
                   "launcher " + std::string(launcher_name) + " not found in PATH");
  const auto shim = locate_shim(flavour);

  TerminationSignals signals;  // before ZeroMQ starts its threads
  const std::string job_id = "yk-" + control::random_hex(4);
  const std::string secret = control::random_hex(16);

  control::CoordinatorConfig config;
  config.job_id = job_id;
  config.secret = secret;
  config.app = shown_app;
  config.flavour = std::string(launch::flavour_name(flavour));
  config.world_size = options.ranks;
  control::Coordinator coordinator(config);

  std::optional<control::PublishedJob> published;
  try {
    published.emplace(
        control::state_dir(),
        control::JobRecord{job_id, getpid(), coordinator.status_endpoint(), secret, shown_app,
                           config.flavour, options.ranks, control::utc_now_iso8601()});
  } catch (const control::RegistryError& e) {
    throw CliError(exit_code::failure, std::string("cannot publish the job: ") + e.what());
  }

  const JobEnvironment env = make_job_environment(
      current_environment(),
      JobSettings{shim.string(), config.flavour, coordinator.control_endpoint(), job_id, secret});

  launch::LaunchPlan plan;
  plan.flavour = flavour;
  plan.launcher = *launcher;
  plan.ranks = options.ranks;
  plan.hosts = input.hosts;
  plan.running_as_root = geteuid() == 0;
  plan.forwarded_env = env.forwarded_names;
  plan.rank_only_env = {{"LD_PRELOAD", env.rank_ld_preload}};
  plan.mpi_args = input.mpi_args;
  plan.app_argv = options.command;
  plan.app_argv.front() = app.string();

  const pid_t child = spawn_process(launch::launcher_argv(plan), env.launcher_env);
  return supervise(child, signals, coordinator);
}

}  // namespace yadokari::cli
