#include "runtime/cli/run_command.hpp"

#include <cstdio>
#include <cstdlib>

#include "runtime/cli/app_resolver.hpp"
#include "runtime/cli/cli_error.hpp"
#include "runtime/cli/flavour_choice.hpp"
#include "runtime/cli/hostfile.hpp"
#include "runtime/frontend/job_file.hpp"
#include "runtime/frontend/job_launch.hpp"
#include "runtime/frontend/platform_slurm.hpp"
#include "runtime/frontend/previous_run.hpp"
#include "runtime/launch/launcher.hpp"
#include "common/parameters.hpp"

namespace yadokari::cli {
namespace {

std::string path_variable() {
  const char* path = std::getenv("PATH");
  return path ? path : "";
}

}  // namespace

std::vector<launch::HostSlots> parsed_hosts(const std::string& hosts) {
  try {
    return hosts.empty() ? std::vector<launch::HostSlots>{} : launch::parse_hosts(hosts);
  } catch (const launch::LaunchError& e) {
    throw CliError(exit_code::usage, e.what());
  }
}

std::vector<std::string> parsed_mpi_args(const std::string& mpi_args) {
  try {
    return launch::split_shell_words(mpi_args);
  } catch (const launch::LaunchError& e) {
    throw CliError(exit_code::usage, e.what());
  }
}

int run_job(const RunOptions& options) {
  if (options.ranks < 1) throw CliError(exit_code::usage, "-n must be at least 1");
  if (options.command.empty()) throw CliError(exit_code::usage, "no application given");
  const auto wanted_flavour = requested_flavour(options.mpi);
  frontend::LaunchRequest request;
  if (!options.hosts.empty() && !options.hostfile.empty())
    throw CliError(exit_code::usage, "give --hosts or --hostfile, not both");
  request.hosts = options.hostfile.empty() ? parsed_hosts(options.hosts) : read_hostfile(options.hostfile);
  std::string hosts_text;  // for job.json, as --hosts would give them
  for (const auto& host : request.hosts)
    hosts_text += (hosts_text.empty() ? "" : ",") + host.host + ":" + std::to_string(host.slots);
  request.mpi_args = parsed_mpi_args(options.mpi_args);
  request.checkpoint = resolve_checkpoint_settings(options.checkpoint, process_environment());
  request.recovery = resolve_recovery_settings(options.recovery, process_environment());

  request.shown_app = options.command.front();
  request.app = resolve_app(request.shown_app, path_variable());
  request.flavour = choose_flavour(request.app, request.shown_app, wanted_flavour);
  request.args.assign(options.command.begin() + 1, options.command.end());
  request.ranks = options.ranks;
  request.job_id = frontend::new_job_id();
  if (!options.sim.empty()) request.sim = options.sim;
  // Agents keep and move node-local images; only jobs on a simulated cluster, on hosts or in a Slurm
  // allocation have agents.
  if (!request.checkpoint.node_dir.empty() && !request.sim && request.hosts.empty() && !frontend::in_slurm_allocation())
    throw CliError(exit_code::usage,
                   "--node-dir needs node agents (a --sim, --hosts or --hostfile job, or one in a Slurm allocation)");
  if (options.fresh && !request.checkpoint.dir) throw CliError(exit_code::usage, "--fresh needs --ckpt-dir");
  if (request.checkpoint.dir) {
    const std::string shown_dir = request.checkpoint.dir->string();
    request.checkpoint.dir = prepare_checkpoint_dir(*request.checkpoint.dir);
    frontend::JobFile job_file{std::filesystem::absolute(request.app).lexically_normal().string(),
                               request.args,
                               std::string(launch::flavour_name(request.flavour)),
                               options.ranks,
                               request.job_id,
                               options.mpi_args,
                               hosts_text};
    // A requeued or chained batch job runs the same command again: it continues where the last
    // committed epoch left it. job.json keeps describing the run that wrote it, as for restart.
    const frontend::PreviousRun previous =
        frontend::look_at_previous_run(*request.checkpoint.dir, shown_dir, job_file, request.app, options.fresh);
    for (const auto& line : previous.lines) std::fprintf(stderr, "yadokari: %s\n", line.c_str());
    request.previous_run = previous.moved_aside;
    if (previous.continue_from) {
      request.flavour = previous.continue_from->flavour;
      request.rank_env = {{yadokari::parameters::kRestore, previous.continue_from->epoch_dir.string()},
                          {yadokari::parameters::kRestoreEpoch, std::to_string(previous.continue_from->epoch)}};
    } else {
      request.job_file = job_file;
    }
  }
  return frontend::launch_job(request);
}

}  // namespace yadokari::cli
