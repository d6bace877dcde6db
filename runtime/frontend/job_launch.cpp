#include "runtime/frontend/job_launch.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "runtime/control/coordinator.hpp"
#include "runtime/control/job_registry.hpp"
#include "protocol/secret.hpp"
#include "runtime/frontend/automatic_restart.hpp"
#include "runtime/frontend/child_process.hpp"
#include "runtime/frontend/frontend_error.hpp"
#include "runtime/frontend/job_environment.hpp"
#include "runtime/frontend/job_supervision.hpp"
#include "runtime/frontend/live_move.hpp"
#include "runtime/frontend/node_agents.hpp"
#include "runtime/frontend/node_drain.hpp"
#include "runtime/frontend/node_local_restart.hpp"
#include "runtime/frontend/platform.hpp"
#include "runtime/frontend/previous_run.hpp"
#include "runtime/frontend/rank_moves.hpp"
#include "runtime/frontend/restart_timeline.hpp"
#include "runtime/frontend/shim_locator.hpp"
#include "runtime/frontend/signal_checkpoint.hpp"
#include "runtime/frontend/termination_signals.hpp"
#include "common/parameters.hpp"

namespace yadokari::frontend {
namespace {

constexpr std::chrono::milliseconds kJoinCheckInterval{1000};
// How long the ranks that stay in a live move may take to leave their launch (they are held at the
// commit already: loading a copy of the library and finalizing the old one take about a second).
constexpr std::chrono::milliseconds kKeptRanksReady{60000};

std::string path_variable() {
  const char* path = std::getenv("PATH");
  return path ? path : "";
}

struct LaunchCommand {
  std::vector<std::string> argv;
  std::vector<std::string> env;
};

// The launcher's command line and environment for one launch of the job.
LaunchCommand command_for(const LaunchRequest& request, const std::filesystem::path& launcher,
                          const std::filesystem::path& shim, const std::string& control_endpoint,
                          const std::string& credential, const Platform& platform, const Incarnation& incarnation,
                          const std::string& path) {
  const std::string flavour(launch::flavour_name(request.flavour));
  JobSettings settings{shim.string(), flavour, control_endpoint, request.job_id, credential, incarnation.rank_env};
  if (request.checkpoint.dir)
    settings.extra.emplace_back(yadokari::parameters::kCkptDir, request.checkpoint.dir->string());
  if (request.checkpoint.full_every)
    settings.extra.emplace_back(yadokari::parameters::kCkptFullEvery, std::to_string(*request.checkpoint.full_every));
  if (request.checkpoint.image_format)
    settings.extra.emplace_back(yadokari::parameters::kImageFormat, *request.checkpoint.image_format);
  JobEnvironment env = make_job_environment(current_environment(), settings);
  for (const auto& [name, value] : platform.launcher_environment()) env.launcher_env.push_back(name + "=" + value);

  launch::LaunchPlan plan;
  plan.flavour = request.flavour;
  plan.launcher = launcher;
  plan.ranks = request.ranks;
  plan.hosts = incarnation.hosts;
  plan.running_as_root = geteuid() == 0;
  plan.forwarded_env = env.forwarded_names;
  plan.rank_only_env = {{"LD_PRELOAD", env.rank_ld_preload}};
  plan.mpi_args = request.mpi_args;
  plan.app_argv = {request.app.string()};
  plan.app_argv.insert(plan.app_argv.end(), request.args.begin(), request.args.end());

  std::vector<std::string> argv = launch::launcher_argv(plan);
  const std::vector<std::string> args = platform.launcher_args(!incarnation.hosts.empty());
  argv.insert(argv.begin() + 1, args.begin(), args.end());
  const std::vector<std::string> prefix = platform.launcher_prefix(path);
  argv.insert(argv.begin(), prefix.begin(), prefix.end());
  return LaunchCommand{std::move(argv), std::move(env.launcher_env)};
}

}  // namespace

std::string new_job_id() { return "yk-" + protocol::random_hex(4); }

int launch_job(const LaunchRequest& request) {
  const std::string path = path_variable();
  const std::string_view launcher_name = launch::launcher_name(request.flavour);
  const auto launcher = launch::find_in_path(launcher_name, path);
  if (!launcher)
    throw FrontendError(ErrorKind::not_found, "launcher " + std::string(launcher_name) + " not found in PATH");
  const auto shim = locate_shim(request.flavour);
  if (request.job_file && request.checkpoint.dir) write_job_file(*request.checkpoint.dir, *request.job_file);

  TerminationSignals signals;  // before ZeroMQ starts its threads
  const std::string secret = protocol::random_hex(16);

  control::CoordinatorConfig config;
  config.job_id = request.job_id;
  config.secret = secret;
  config.app = request.shown_app;
  config.flavour = std::string(launch::flavour_name(request.flavour));
  config.world_size = request.ranks;
  config.control_port = request.recovery.control_port;
  const CheckpointSettings& ckpt = request.checkpoint;
  std::optional<PlannedStop> stop;
  SignalCheckpoint signal_checkpoint(ckpt.dir.has_value());
  std::optional<std::filesystem::path> previous_run = request.previous_run;
  RebalanceState rebalance;
  control::Coordinator* coordinator_ptr = nullptr;  // for the callbacks, which run inside its poll()
  if (ckpt.dir) {
    config.checkpoint = control::CoordinatorConfig::Checkpointing{*ckpt.dir, ckpt.keep, ckpt.compression,
                                                                  ckpt.interval_seconds, ckpt.node_dir};
    // Epochs are numbered by the directory, so "epoch K" may be passed over (a failed epoch
    // leaves no number behind, a restart continues the numbering): stop at the first commit
    // at or after K.
    // Such an epoch holds its ranks from their capture until they are stopped: what they would do
    // after the checkpoint would be done again by the restart (stdout printed twice).
    config.job_ends_at_commit = [&ckpt, &rebalance, &signal_checkpoint](std::uint64_t epoch) {
      return (ckpt.stop_after_epoch && epoch >= *ckpt.stop_after_epoch) || signal_checkpoint.waiting() ||
             rebalance.wanted;
    };
    config.on_epoch_end = [&stop, &ckpt, &rebalance, &coordinator_ptr, &signal_checkpoint,
                           &previous_run](const control::EpochEnd& end) {
      if (end.committed && previous_run) {
        remove_previous_run(*previous_run, end.epoch);
        previous_run.reset();
      }
      if (end.committed && ckpt.stop_after_epoch && end.epoch >= *ckpt.stop_after_epoch)
        stop = PlannedStop{kStoppedAfterEpoch, "stopped after epoch " + std::to_string(*ckpt.stop_after_epoch) +
                                                   " as requested (--stop-after-epoch)"};
      const SignalCheckpoint::AfterEpoch after = signal_checkpoint.on_epoch_end(end);
      if (!after.line.empty()) std::fprintf(stderr, "yadokari: %s\n", after.line.c_str());
      if (after.stop && !stop) stop = after.stop;
      if (after.retry) coordinator_ptr->request_checkpoint();
      if (rebalance.wanted && end.committed) {
        rebalance.ready = true;
        rebalance.epoch = end.epoch;
        rebalance.checkpoint_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - rebalance.asked_at).count();
      }
      if (rebalance.wanted && !end.committed) {
        // A cut that cannot complete now (e.g. a rank hung in the library) would fail every time:
        // after a few tries the job goes on where it runs rather than checkpointing in a loop.
        if (++rebalance.failed_epochs >= RebalanceState::kAttempts) {
          std::fprintf(
              stderr,
              "yadokari: rebalance given up: %d checkpoints in a row did not commit; the job goes on where it runs\n",
              rebalance.failed_epochs);
          rebalance = RebalanceState{};
          return;
        }
        std::fprintf(stderr, "yadokari: rebalance: epoch %llu failed (%s); trying another\n",
                     static_cast<unsigned long long>(end.epoch), end.message.c_str());
        coordinator_ptr->request_checkpoint();
      }
    };
  }
  // Where the job runs (platform.hpp): this host, hosts reached over a remote shell, or a
  // simulated cluster. With node agents, their heartbeats detect a lost node.
  const std::unique_ptr<Platform> platform = make_platform(request);
  if (std::string bind_host = platform->bind_host(); !bind_host.empty()) config.bind_host = bind_host;
  // A move of some ranks (`yadokari migrate`, a draining node): a checkpoint, then a restart with
  // only those ranks moved; `live`: the ranks that stay keep their processes. `cause` "" says
  // "migrate <moves>".
  const auto begin_moves = [&rebalance, &coordinator_ptr](const std::vector<scheduler::Move>& moves,
                                                          const std::string& cause, bool live) {
    rebalance.wanted = true;
    rebalance.moves = moves;
    rebalance.cause = cause;
    rebalance.live = live;
    rebalance.asked_at = std::chrono::steady_clock::now();
    coordinator_ptr->request_checkpoint();
  };
  // Why no move of this job can be live here ("" if one can).
  const std::string why_not_live_here =
      why_not_live(platform->shares_pid_namespace(), !ckpt.node_dir.empty(), !platform->slurm_job_id().empty());
  if (request.recovery.live_moves && !why_not_live_here.empty())
    std::fprintf(stderr, "yadokari: --live-moves: this job's moves restart the whole job: %s\n",
                 why_not_live_here.c_str());
  const bool moves_live = request.recovery.live_moves && why_not_live_here.empty();  // --live-moves, and it can
  NodeDrains drains(NodeDrains::Job{request.ranks, ckpt.dir.has_value(), request.recovery.max_oversubscribe,
                                    request.flavour, moves_live});
  if (platform->has_agents()) {
    control::CoordinatorConfig::Membership membership;
    membership.heartbeat = request.recovery.heartbeat;
    for (const auto& node : platform->nodes())
      if (node.alive) membership.slots[node.id] = node.slots;
    config.membership = membership;
    if (ckpt.dir)
      config.on_rebalance = [&rebalance, &coordinator_ptr, &request, moves_live]() -> protocol::RebalanceReply {
        if (rebalance.wanted) return {false, "a rebalance of job " + request.job_id + " is already under way"};
        rebalance.wanted = true;
        rebalance.live = moves_live;
        rebalance.asked_at = std::chrono::steady_clock::now();
        coordinator_ptr->request_checkpoint();
        if (rebalance.live) {
          std::fprintf(stderr,
                       "yadokari: rebalance requested, live: a checkpoint, then the ranks the new placement leaves "
                       "where they run swap their MPI library in their processes and only the others restart\n");
          return {true, "live rebalance of job " + request.job_id +
                            " started: a checkpoint, then only the ranks the new placement moves restart"};
        }
        std::fprintf(stderr, "yadokari: rebalance requested: checkpoint, then restart on the nodes alive now\n");
        return {true, "rebalance of job " + request.job_id +
                          " started: a checkpoint, then a restart placed anew on the nodes alive now"};
      };
    if (ckpt.dir)
      config.on_migrate = [&rebalance, &coordinator_ptr, &request, &platform, &why_not_live_here,
                           &begin_moves](const protocol::MigrateRequest& asked) -> protocol::RebalanceReply {
        if (rebalance.wanted)
          return {false, "a rebalance or migration of job " + request.job_id + " is already under way"};
        const std::vector<scheduler::Move> moves =
            moves_to(std::vector<int>(asked.ranks.begin(), asked.ranks.end()), asked.to);
        // Checked now against where the ranks run, so that a move that cannot be done is refused
        // to the user at once rather than after a checkpoint.
        try {
          (void)plan_moves(request.ranks, nodes_for_planning(*platform, *coordinator_ptr, {}, {}),
                           hosts_of_ranks(coordinator_ptr->registrations(), request.ranks), moves,
                           request.recovery.max_oversubscribe);
        } catch (const scheduler::PlacementError& e) {
          return {false, std::string("cannot move ") + scheduler::moves_text(moves) + ": " + e.what()};
        }
        const bool live_asked = asked.live || request.recovery.live_moves;
        begin_moves(moves, "", live_asked && why_not_live_here.empty());
        if (live_asked) {
          if (why_not_live_here.empty()) {
            std::fprintf(stderr,
                         "yadokari: migrate %s requested, live: a checkpoint, then the ranks that stay swap their MPI "
                         "library in their processes and only these ranks restart\n",
                         scheduler::moves_text(moves).c_str());
            return {true, "live migration of " + scheduler::moves_text(moves) + " in job " + request.job_id +
                              " started: a checkpoint, then only these ranks restart"};
          }
          std::fprintf(stderr, "yadokari: migrate %s cannot be live: %s\n", scheduler::moves_text(moves).c_str(),
                       why_not_live_here.c_str());
        }
        const std::string why = why_no_live_migration(request.flavour);
        std::fprintf(stderr,
                     "yadokari: migrate %s requested: %s, so the job is checkpointed and restarted "
                     "with only these ranks moved\n",
                     scheduler::moves_text(moves).c_str(), why.c_str());
        return {true, "migration of " + scheduler::moves_text(moves) + " in job " + request.job_id +
                          " started: a checkpoint, then a restart with only these ranks moved (" + why + ")"};
      };
  }
  const std::vector<launch::HostSlots> hosts = platform->first_hosts();
  std::unique_ptr<control::Coordinator> coordinator_holder;
  try {
    coordinator_holder = platform->start_coordinator(config);
  } catch (const control::CoordinatorError& e) {
    throw FrontendError(ErrorKind::failure, e.what());
  }
  control::Coordinator& coordinator = *coordinator_holder;
  coordinator_ptr = &coordinator;
  // Every client gets the credential (the secret and the coordinator's public key), never the
  // bare secret: their links are encrypted with the key (protocol/curve.hpp).
  const std::string& credential = coordinator.credential();

  std::optional<control::PublishedJob> published;
  try {
    published.emplace(control::state_dir(),
                      control::JobRecord{request.job_id, getpid(), coordinator.status_endpoint(), credential,
                                         request.shown_app, config.flavour, request.ranks, control::utc_now_iso8601(),
                                         platform->netns_pid(), platform->slurm_job_id(), platform->slurm_node_list()});
  } catch (const control::RegistryError& e) {
    throw FrontendError(ErrorKind::failure, std::string("cannot publish the job: ") + e.what());
  }

  std::optional<NodeAgents> agents;
  if (platform->has_agents()) {
    agents.emplace(coordinator.control_endpoint(), current_environment(), request.job_id, credential,
                   ckpt.node_dir.string());
    for (const auto& node : platform->nodes())
      if (node.alive) agents->start(platform->agent_launch(node));
    agents->wait_until_connected(coordinator, platform->agent_connect_timeout());
  }
  // Nodes that join the cluster while the job runs (`yadokari sim add`) get an agent; the
  // next restart or rebalance may place ranks on them.
  auto next_join_check = std::chrono::steady_clock::now();
  const auto watch_for_joins = [&] {
    if (!agents || std::chrono::steady_clock::now() < next_join_check) return;
    next_join_check = std::chrono::steady_clock::now() + kJoinCheckInterval;
    for (const auto& node : platform->joined_nodes(coordinator)) {
      coordinator.expect_node(node.id, node.slots);
      agents->start(platform->agent_launch(node));
      std::fprintf(stderr, "yadokari: node %s joined (%d slots); it is used at the next restart or rebalance\n",
                   node.id.c_str(), node.slots);
    }
  };

  std::vector<RestartTimeline> timelines;
  coordinator.set_status_extras([&timelines, &drains, &coordinator, &rebalance](protocol::StatusReport& report) {
    report.restarts = static_cast<std::uint32_t>(timelines.size());
    for (const auto& timeline : timelines) report.timeline.push_back(timeline_line(timeline));
    // An asked-for restart before its epoch commits (after that, the restart's own line follows).
    if (rebalance.wanted)
      report.timeline.push_back(
          fmt::format("{} under way: checkpoint asked for {:.3f} s ago, then a restart", rebalance_cause(rebalance),
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - rebalance.asked_at).count()));
    drains.describe(report, coordinator.registrations());
  });
  RestartContext restart_context;
  restart_context.platform = platform.get();
  if (ckpt.dir) restart_context.ckpt_dir = *ckpt.dir;
  restart_context.node_dir = ckpt.node_dir;
  restart_context.job_id = request.job_id;
  restart_context.app = request.app;
  restart_context.world_size = request.ranks;
  restart_context.settings = request.recovery;
  // How long a node may be silent before it is lost; 0: no agents, nothing to watch.
  const std::chrono::milliseconds loss_after =
      agents ? std::chrono::duration_cast<std::chrono::milliseconds>(request.recovery.heartbeat.interval *
                                                                     request.recovery.heartbeat.misses)
             : std::chrono::milliseconds(0);

  // A failed launcher (a rank died) restarts the job only once it has an epoch to go back to: one
  // committed by this front end, or the one `yadokari restart` launched from. Before that, the
  // failure is the application's and ends the job with its exit code, as without checkpoints.
  const bool launched_from_epoch =
      request.restore_node_local ||
      std::any_of(request.rank_env.begin(), request.rank_env.end(),
                  [](const auto& variable) { return variable.first == yadokari::parameters::kRestore; });
  const std::function<bool()> restart_failures = [&] {
    return ckpt.dir && (launched_from_epoch || coordinator.last_committed_epoch() > 0);
  };

  Incarnation incarnation{hosts, request.rank_env};
  bool restore_reported = !launched_from_epoch;
  if (request.restore_node_local) {
    if (!agents || ckpt.node_dir.empty() || !ckpt.dir)
      throw FrontendError(ErrorKind::failure, "cannot restart node-local images without node agents and --node-dir");
    incarnation = restore_node_local(restart_context, coordinator);
  }
  for (;;) {
    const LaunchCommand command =
        command_for(request, *launcher, shim, coordinator.control_endpoint(), credential, *platform, incarnation, path);
    const pid_t child = spawn_tied_process(command.argv, command.env, SIGTERM);
    const auto launched = std::chrono::steady_clock::now();
    bool logged = timelines.empty();
    // A stop is only ever set from inside poll(), i.e. on this thread.
    const auto take_over_signal = [&](const ReceivedSignal& received) {
      const SignalCheckpoint::Reaction reaction = signal_checkpoint.on_signal(received);
      if (!reaction.line.empty()) std::fprintf(stderr, "yadokari: %s\n", reaction.line.c_str());
      if (reaction.action == SignalCheckpoint::Action::checkpoint) coordinator.request_checkpoint();
      return reaction.action != SignalCheckpoint::Action::forward;
    };
    const Outcome outcome =
        supervise(child, signals, coordinator, stop, loss_after, rebalance, take_over_signal, restart_failures, [&] {
          if (timelines.empty()) report_restore(coordinator, static_cast<std::size_t>(request.ranks), restore_reported);
          if (!timelines.empty()) {
            const auto world = static_cast<std::size_t>(request.ranks);
            follow_restart(timelines.back(), coordinator, launched, world, logged);
            // A stalled restart ends the job with its reason instead of holding it for ever.
            if (auto line = restart_stalled(timelines.back(), coordinator.progress(), launched, world,
                                            std::chrono::steady_clock::now());
                line && !stop)
              stop = PlannedStop{1, *line};
          }
          watch_for_joins();
          if (agents) drains.watch(*platform, coordinator, rebalance.wanted, begin_moves);
        });
    if (outcome.exit_code) return *outcome.exit_code;
    RestartCause cause;
    if (outcome.rebalance) {
      cause.text = rebalance_cause(rebalance);
      cause.checkpoint_s = rebalance.checkpoint_s;
      cause.rebalance = true;
      cause.moves = rebalance.moves;
      if (rebalance.live) {
        std::string why;
        // A rebalance's moves are its placement's, planned now as the restart will plan them (the
        // restart checks that it moves none of the kept ranks: still_live).
        std::vector<scheduler::Move> moves = rebalance.moves;
        if (moves.empty()) try {
            moves = rebalance_moves(restart_context, coordinator);
          } catch (const scheduler::PlacementError& e) {
            why = e.what();
          }
        if (!moves.empty())
          cause.kept = keep_unmoved_ranks(coordinator, restart_context.ckpt_dir, rebalance.epoch, request.ranks, moves,
                                          kKeptRanksReady, why);
        else if (why.empty())
          why = "the new placement moves no rank";
        if (!cause.kept)
          std::fprintf(stderr, "yadokari: %s cannot go on live (%s); the whole job restarts\n", cause.text.c_str(),
                       why.c_str());
      }
    } else if (outcome.failed_with) {
      cause = failure_of(*outcome.failed_with);
    } else {
      cause = loss_of(outcome.lost);
    }
    cause.unheard.insert(outcome.unheard.begin(), outcome.unheard.end());
    cause.settle_s = outcome.settle_s;
    RestartTimeline timeline;
    restart_context.restarts_so_far = static_cast<int>(timelines.size());
    try {
      incarnation =
          restart_elsewhere(restart_context, coordinator, outcome.launcher_reaped ? 0 : child, cause, timeline);
    } catch (...) {
      if (cause.kept) stop_kept_processes(*cause.kept);  // they would wait for a launch that never comes
      throw;
    }
    if (!cause.rebalance) ++restart_context.failures_so_far;
    rebalance = RebalanceState{};
    timelines.push_back(timeline);
    coordinator.begin_incarnation();
    // A signal's epoch that the restart interrupted is asked for again from the new incarnation.
    if (signal_checkpoint.waiting()) coordinator.request_checkpoint();
  }
}

}  // namespace yadokari::frontend
