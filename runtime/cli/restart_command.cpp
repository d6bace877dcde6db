#include "runtime/cli/restart_command.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "runtime/cli/app_resolver.hpp"
#include "runtime/cli/cli_error.hpp"
#include "runtime/cli/run_command.hpp"
#include "runtime/control/job_registry.hpp"
#include "runtime/frontend/job_file.hpp"
#include "runtime/frontend/job_launch.hpp"
#include "runtime/frontend/platform_slurm.hpp"
#include "runtime/frontend/restart_checks.hpp"
#include "common/parameters.hpp"

namespace yadokari::cli {
namespace fs = std::filesystem;
namespace {

// --rank-map: a permutation of 0..world_size-1 as a comma list. Throws CliError(usage).
void check_rank_map(const std::string& map, int world_size) {
  std::set<int> seen;
  std::size_t at = 0;
  bool good = !map.empty();
  while (good && at <= map.size()) {
    const auto comma = std::min(map.find(',', at), map.size());
    int rank = -1;
    const auto [end, error] = std::from_chars(map.data() + at, map.data() + comma, rank);
    good =
        error == std::errc() && end == map.data() + comma && rank >= 0 && rank < world_size && seen.insert(rank).second;
    at = comma + 1;
  }
  if (!good || seen.size() != static_cast<std::size_t>(world_size))
    throw CliError(exit_code::usage, "--rank-map must list each logical rank from 0 to " +
                                         std::to_string(world_size - 1) + " once, not '" + map + "'");
}

// Images on the nodes (--node-dir): only the agents of a job on those nodes can verify and stage
// them, so the restart runs as that job (its id names the images' directories and is in their
// headers) and chooses the epoch once its agents are up, as an automatic restart does.
int restart_node_local(const RestartOptions& options, frontend::LaunchRequest& request,
                       const frontend::NodeLocalCheckpoint& node_local, const fs::path& typed, const fs::path& dir) {
  const std::string where = "epoch " + std::to_string(node_local.newest) + " in " + typed.string() +
                            " is kept on node-local storage of " + node_local.nodes + " (--node-dir)";
  if (request.checkpoint.node_dir.empty())
    throw CliError(exit_code::usage, where +
                                         ": restart it with --node-dir (the job's) on the cluster whose nodes hold "
                                         "it (--sim, --hosts or --hostfile)");
  if (!options.rank_map.empty())
    throw CliError(exit_code::usage, where +
                                         ": --rank-map cannot be used, the placement decides which node each "
                                         "rank's images are staged to");
  for (const auto& running : control::running_jobs(control::state_dir()))
    if (running.job_id == node_local.job_id)
      throw CliError(exit_code::failure, where + ": its job " + node_local.job_id +
                                             " is still running (front end pid " + std::to_string(running.pid) +
                                             "); stop it first");
  request.checkpoint.dir = prepare_checkpoint_dir(dir);
  request.job_id = node_local.job_id;
  request.flavour = node_local.flavour;
  request.restore_node_local = true;
  return frontend::launch_job(request);
}

}  // namespace

int restart_job(const RestartOptions& options) {
  check_ckpt_dir_flag(options.checkpoint);
  if (options.checkpoint.ckpt_dir.empty()) throw CliError(exit_code::usage, "restart needs --ckpt-dir");
  if (options.ranks && *options.ranks < 1) throw CliError(exit_code::usage, "-n must be at least 1");
  // The directory as typed, for messages; absolute for everything else.
  const fs::path typed = options.checkpoint.ckpt_dir;
  const fs::path dir = fs::absolute(typed).lexically_normal();

  frontend::LaunchRequest request;
  request.checkpoint = resolve_checkpoint_settings(options.checkpoint, process_environment());
  request.recovery = resolve_recovery_settings(options.recovery, process_environment());
  const frontend::JobFile job = frontend::read_job_file(dir);
  request.hosts = parsed_hosts(options.hosts.value_or(job.hosts));
  if (!options.sim.empty()) request.sim = options.sim;
  if (!request.checkpoint.node_dir.empty() && !request.sim && request.hosts.empty() && !frontend::in_slurm_allocation())
    throw CliError(exit_code::usage,
                   "--node-dir needs node agents (a --sim, --hosts or --hostfile job, or one in a Slurm allocation)");
  request.mpi_args = parsed_mpi_args(options.mpi_args.value_or(job.mpi_args));
  if (!options.rank_map.empty()) check_rank_map(options.rank_map, job.world_size);

  const char* path = std::getenv("PATH");
  request.app = resolve_app(job.app, path ? path : "");
  request.shown_app = job.app;
  request.args = job.args;
  request.ranks = job.world_size;
  if (const auto node_local = frontend::node_local_checkpoint(dir, job, request.app, options.ranks))
    return restart_node_local(options, request, *node_local, typed, dir);
  const frontend::RestartChoice choice = frontend::choose_restart(dir, job, request.app, options.ranks);
  // Only now, when nothing more can refuse the restart: keep checkpointing into D.
  request.checkpoint.dir = prepare_checkpoint_dir(dir);

  request.job_id = frontend::new_job_id();
  request.flavour = choice.flavour;
  request.rank_env = {{yadokari::parameters::kRestore, choice.epoch_dir.string()},
                      {yadokari::parameters::kRestoreEpoch, std::to_string(choice.epoch)}};
  if (!options.rank_map.empty()) request.rank_env.emplace_back(yadokari::parameters::kRankMap, options.rank_map);
  for (const auto& note : choice.notes) std::fprintf(stderr, "yadokari: %s\n", note.c_str());
  return frontend::launch_job(request);
}

}  // namespace yadokari::cli
