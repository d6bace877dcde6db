#include "runtime/frontend/automatic_restart.hpp"

#include <chrono>
#include <cstdio>
#include <optional>
#include <set>
#include <vector>

#include "runtime/frontend/frontend_error.hpp"
#include "runtime/frontend/job_file.hpp"
#include "runtime/frontend/job_stopper.hpp"
#include "runtime/frontend/node_agents.hpp"
#include "runtime/frontend/node_local_images.hpp"
#include "runtime/frontend/platform.hpp"
#include "runtime/frontend/rank_moves.hpp"
#include "runtime/frontend/restart_checks.hpp"
#include "runtime/frontend/restart_plan.hpp"
#include "runtime/membership/heartbeat_tracker.hpp"
#include "common/parameters.hpp"

namespace yadokari::frontend {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

std::string host_list(const std::vector<launch::HostSlots>& hosts) {
  std::vector<std::string> items;
  for (const auto& host : hosts) items.push_back(host.host + ":" + std::to_string(host.slots));
  return joined(items, ",");
}

// Kills what is left of the job: through each surviving node's agent, and directly the ranks this
// host can see (all of them on a simulated cluster, which shares this host's pid namespace; on
// real hosts only those running here: a remote pid means another process here). The launcher's
// own tree is local anyway.
// `kept`: a live move's kept processes, spared (their launch parents are killed first).
void stop_everything(control::Coordinator& coordinator, pid_t launcher,
                     const std::vector<protocol::RegisterRank>& registrations, const std::set<std::string>& lost,
                     bool shared_pid_namespace, const std::optional<KeptRanks>& kept) {
  std::set<pid_t> spared;
  if (kept) {
    for (const auto& [rank, pid] : kept->processes) spared.insert(pid);
    freeze_launcher(launcher, spared);
    detach_kept_processes(*kept);
  }
  std::vector<pid_t> pids;
  for (const auto& node : coordinator.nodes()) {
    if (lost.count(node.node)) continue;
    std::vector<std::int64_t> on_node;
    for (const auto& rank : registrations)
      if (rank.hostname == node.hostname && !spared.count(static_cast<pid_t>(rank.pid))) on_node.push_back(rank.pid);
    if (!on_node.empty()) coordinator.stop_processes(node.node, on_node);
  }
  coordinator.poll(std::chrono::milliseconds(0));  // let the sockets send
  for (const auto& rank : registrations)
    if (shared_pid_namespace || is_this_host(rank.hostname)) pids.push_back(static_cast<pid_t>(rank.pid));
  stop_whole_job(launcher, pids, spared);
}

// A live move goes on only from the epoch its kept ranks hold, with none of them moved; otherwise
// the kept processes are stopped too and the whole job restarts (one line says why).
std::optional<KeptRanks> still_live(const std::optional<KeptRanks>& kept, const std::string& cause, std::uint64_t epoch,
                                    const scheduler::Placement& placement) {
  if (!kept) return std::nullopt;
  std::string why;
  if (epoch != kept->epoch)
    why = "the restart's epoch is " + std::to_string(epoch) + ", not " + std::to_string(kept->epoch);
  for (const int rank : placement.moved)
    if (kept->processes.count(rank)) why = "the placement moves rank " + std::to_string(rank) + ", which stays";
  if (why.empty()) return kept;
  std::fprintf(stderr, "yadokari: %s cannot go on live (%s); the whole job restarts\n", cause.c_str(), why.c_str());
  stop_kept_processes(*kept);
  return std::nullopt;
}

}  // namespace

std::vector<ClusterNode> nodes_for_planning(const Platform& platform, const control::Coordinator& coordinator,
                                            const std::set<std::string>& lost, const std::set<std::string>& unheard) {
  std::vector<ClusterNode> nodes = platform.nodes_now(coordinator);
  // Also the nodes lost before this restart: a node cut off from the network (link down) is still
  // listed by its platform (`sim` sees its holder alive, a host list does not change).
  std::set<std::string> ever_lost = lost;
  for (const auto& status : coordinator.nodes())
    if (status.state == membership::state_name(membership::NodeState::lost)) ever_lost.insert(status.node);
  // A draining node is leaving: nothing is placed there (docs/flows/migrate.md, "Draining a node").
  for (auto& node : nodes)
    if (ever_lost.count(node.id) || unheard.count(node.id) || node.draining) node.alive = false;
  return nodes;
}

std::vector<std::string> hosts_of_ranks(const std::vector<protocol::RegisterRank>& registrations, int world_size) {
  std::vector<std::string> rank_hosts(static_cast<std::size_t>(world_size));
  for (const auto& rank : registrations)
    if (rank.logical_rank >= 0 && rank.logical_rank < world_size)
      rank_hosts[static_cast<std::size_t>(rank.logical_rank)] = rank.hostname;
  return rank_hosts;
}

RestartCause loss_of(const std::vector<membership::NodeEvent>& lost) {
  RestartCause cause;
  std::vector<std::string> names;
  for (const auto& event : lost) {
    names.push_back(event.node);
    cause.lost.insert(event.node);
  }
  cause.text = "node " + joined(names, ", ") + " lost";
  if (!lost.empty()) cause.detect_s = std::chrono::duration<double>(lost.front().silence).count();
  return cause;
}

RestartCause failure_of(int launcher_code) {
  RestartCause cause;
  cause.text = "a rank died (the launcher exited with code " + std::to_string(launcher_code) + ")";
  return cause;
}

RestartPlan plan_placement(const RestartContext& context, const RestartCause& restart_cause,
                           const std::vector<ClusterNode>& nodes, const std::vector<std::string>& rank_hosts,
                           const scheduler::TrafficMatrix& traffic, const std::vector<std::optional<double>>& compute) {
  // `yadokari migrate`: the named ranks move, the others stay. Checked when it was asked for;
  // a node lost since then makes it a re-placement by policy, said in one line.
  if (!restart_cause.moves.empty()) {
    try {
      return plan_moves(context.world_size, nodes, rank_hosts, restart_cause.moves, context.settings.max_oversubscribe);
    } catch (const scheduler::PlacementError& e) {
      std::fprintf(stderr, "yadokari: %s cannot be done any more (%s); the ranks are placed by policy instead\n",
                   restart_cause.text.c_str(), e.what());
    }
  }
  // A rebalance is asked for to relieve crowded nodes: a slot per rank if the nodes allow it.
  if (restart_cause.rebalance) {
    try {
      return plan_restart(context.settings.policy, context.world_size, nodes, rank_hosts, 1.0, traffic, compute);
    } catch (const scheduler::PlacementError&) {
    }
  }
  return plan_restart(context.settings.policy, context.world_size, nodes, rank_hosts,
                      context.settings.max_oversubscribe, traffic, compute);
}

std::vector<scheduler::Move> rebalance_moves(const RestartContext& context, const control::Coordinator& coordinator) {
  RestartCause rebalance;
  rebalance.text = "rebalance";
  rebalance.rebalance = true;
  const std::vector<ClusterNode> nodes = nodes_for_planning(*context.platform, coordinator, {}, {});
  const std::vector<std::string> rank_hosts = hosts_of_ranks(coordinator.registrations(), context.world_size);
  const control::ComputeTimes& measured = coordinator.last_committed_compute();
  const RestartPlan plan =
      plan_placement(context, rebalance, nodes, rank_hosts, traffic_matrix(coordinator.last_committed_traffic().rows),
                     compute_on_current_hosts(measured.seconds, measured.hosts, rank_hosts));
  const std::vector<std::string> target = node_id_of_rank(plan, nodes);
  std::vector<scheduler::Move> moves;
  for (const int rank : plan.placement.moved)
    moves.push_back(scheduler::Move{rank, target[static_cast<std::size_t>(rank)]});
  return moves;
}

Incarnation restart_elsewhere(const RestartContext& context, control::Coordinator& coordinator, pid_t launcher,
                              const RestartCause& restart_cause, RestartTimeline& timeline) {
  const std::string& cause = restart_cause.text;
  const std::set<std::string>& lost_ids = restart_cause.lost;
  timeline.number = context.restarts_so_far + 1;
  timeline.cause = cause;
  timeline.detect_s = restart_cause.detect_s;
  timeline.settle_s = restart_cause.settle_s;
  timeline.checkpoint_s = restart_cause.checkpoint_s;

  // stop
  auto phase = Clock::now();
  const std::vector<protocol::RegisterRank> registrations = coordinator.registrations();
  stop_everything(coordinator, launcher, registrations, lost_ids, context.platform->shares_pid_namespace(),
                  restart_cause.kept);
  timeline.stop_s = seconds_since(phase);

  if (context.ckpt_dir.empty())
    throw FrontendError(ErrorKind::failure,
                        cause + "; the job cannot be restarted without checkpoints (run it with --ckpt-dir)");
  if (!restart_cause.rebalance && context.failures_so_far >= context.settings.max_restarts)
    throw FrontendError(ErrorKind::failure, cause + "; giving up after " + std::to_string(context.failures_so_far) +
                                                " automatic restart(s) (--max-restarts)");

  // plan: the epoch (newest committed one whose images all verify), then the placement.
  phase = Clock::now();
  // Node-local images are checked by the agents of the nodes that hold them; the executable is
  // the one this front end launched all along.
  const bool node_local = !context.node_dir.empty();
  RestartChoice choice;
  NodeLocalEpoch node_local_choice;
  try {
    if (node_local) {
      node_local_choice = choose_node_local_epoch(context.ckpt_dir, context.world_size, coordinator, lost_ids);
      choice.epoch = node_local_choice.epoch;
      choice.epoch_dir = context.node_dir / context.job_id / std::to_string(choice.epoch);
      choice.notes = node_local_choice.notes;
    } else {
      choice = choose_restart(context.ckpt_dir, read_job_file(context.ckpt_dir), context.app, std::nullopt);
    }
  } catch (const FrontendError& e) {
    throw FrontendError(ErrorKind::failure, cause + "; cannot restart: " + e.what());
  }
  const std::vector<ClusterNode> nodes =
      nodes_for_planning(*context.platform, coordinator, lost_ids, restart_cause.unheard);
  for (const auto& node : restart_cause.unheard)
    std::fprintf(stderr, "yadokari: node %s not heard from since the failure; no ranks are placed on it\n",
                 node.c_str());
  const std::vector<std::string> rank_hosts = hosts_of_ranks(registrations, context.world_size);
  // The traffic the ranks reported with their images (comm/auto co-locate heavy partners).
  const control::TrafficCounts& counts = coordinator.last_committed_traffic();
  const scheduler::TrafficMatrix traffic = traffic_matrix(counts.rows);
  // The compute time each rank measured in the last committed epoch (speed/auto weigh nodes by it).
  const control::ComputeTimes& measured = coordinator.last_committed_compute();
  const std::vector<std::optional<double>> compute =
      compute_on_current_hosts(measured.seconds, measured.hosts, rank_hosts);
  RestartPlan plan;
  try {
    plan = plan_placement(context, restart_cause, nodes, rank_hosts, traffic, compute);
  } catch (const scheduler::PlacementError& e) {
    throw FrontendError(ErrorKind::failure, cause + "; cannot restart: " + e.what());
  }
  timeline.plan_s = seconds_since(phase);
  timeline.epoch = choice.epoch;
  const std::optional<KeptRanks> kept = still_live(restart_cause.kept, cause, choice.epoch, plan.placement);
  std::vector<std::string> moved;
  for (const int rank : plan.placement.moved) moved.push_back(std::to_string(rank));
  timeline.placement =
      "policy " + plan.placement.policy + ", ranks moved: " + (moved.empty() ? "none" : joined(moved, ","));

  // stage: node-local images are copied to the nodes that lack them; a shared checkpoint
  // directory (simulated nodes share the host's file system) needs nothing.
  phase = Clock::now();
  if (node_local) {
    const std::vector<std::string> target_node = node_id_of_rank(plan, nodes);
    try {
      stage_node_local_images(node_local_choice, target_node, coordinator);
    } catch (const FrontendError& e) {
      throw FrontendError(ErrorKind::failure, cause + "; cannot restart: " + e.what());
    }
  }
  timeline.stage_s = seconds_since(phase);

  for (const auto& note : choice.notes) std::fprintf(stderr, "yadokari: %s\n", note.c_str());
  std::fprintf(stderr, "yadokari: %s; restarting from epoch %llu on %s (%s)\n", cause.c_str(),
               static_cast<unsigned long long>(choice.epoch), host_list(plan.hosts).c_str(),
               timeline.placement.c_str());
  if (const std::string summary = compute_summary(compute, rank_hosts); !summary.empty())
    std::fprintf(stderr,
                 measured.since_start
                     ? "yadokari: compute time per rank since its process started (the epoch ending at %llu "
                       "shows none for some ranks): %s\n"
                     : "yadokari: compute time per rank in the epoch ending at %llu: %s\n",
                 static_cast<unsigned long long>(measured.epoch), summary.c_str());
  std::fprintf(stderr, "yadokari: placement: %s\n", plan.placement.explanation.c_str());
  Incarnation next;
  next.hosts = plan.hosts;
  next.rank_env = {{yadokari::parameters::kRestore, choice.epoch_dir.string()},
                   {yadokari::parameters::kRestoreEpoch, std::to_string(choice.epoch)},
                   {yadokari::parameters::kRankMap, plan.rank_map}};
  if (kept) {
    // The kept processes stand in for their own ranks in this launch (docs/flows/migrate.md).
    std::fprintf(stderr, "yadokari: live move: rank%s %s keep their processes, the others restore epoch %llu\n",
                 kept->processes.size() > 1 ? "s" : "", kept_rank_list(*kept).c_str(),
                 static_cast<unsigned long long>(choice.epoch));
    next.rank_env.emplace_back(yadokari::parameters::kKeptRanks, kept_rank_list(*kept));
    next.rank_env.emplace_back(yadokari::parameters::kSwapDir, kept->dir.string());
  }
  return next;
}

}  // namespace yadokari::frontend
