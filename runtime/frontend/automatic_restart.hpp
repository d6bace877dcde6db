#pragma once
// One automatic restart after a node loss (docs/architecture.md §6), a rank's death, a rebalance or a
// migrate (docs/flows/migrate.md): stop every
// remaining process of the job, choose the newest committed epoch whose images all verify, ask the scheduler for a
// placement on the surviving nodes, stage the images, and say what the next launch must be.
// Each phase is timed into a RestartTimeline; the launch/MPI_Init/restore phases are filled in
// by the supervisor as the ranks come up.
#include <sys/types.h>

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/control/coordinator.hpp"
#include "runtime/frontend/live_move.hpp"
#include "runtime/frontend/recovery_settings.hpp"
#include "runtime/frontend/restart_plan.hpp"
#include "runtime/frontend/restart_timeline.hpp"
#include "runtime/launch/launcher.hpp"
#include "runtime/membership/heartbeat_tracker.hpp"
#include "scheduler/moves.hpp"

namespace yadokari::frontend {

// What a launch of the job needs beyond the fixed request: where, and what the ranks restore.
struct Incarnation {
  std::vector<launch::HostSlots> hosts;  // empty: the cluster's/user's default
  std::vector<std::pair<std::string, std::string>> rank_env;
};

class Platform;

struct RestartContext {
  const Platform* platform = nullptr;  // where the job runs (platform.hpp): its nodes now
  std::filesystem::path ckpt_dir;      // absolute; empty: checkpointing is off
  std::filesystem::path node_dir;      // node-local images (--node-dir); empty: they are in ckpt_dir
  std::string job_id;
  std::filesystem::path app;  // resolved, for the build-id check
  std::int32_t world_size = 0;
  RecoverySettings settings;
  int restarts_so_far = 0;  // restarts of any cause (they are numbered)
  int failures_so_far = 0;  // restarts after a node loss or a rank's death (bounded by --max-restarts)
};

// Why the job is restarted elsewhere.
struct RestartCause {
  std::string text;                    // "node n2 lost", "a rank died (...)", "rebalance"
  std::set<std::string> lost;          // node ids
  std::set<std::string> unheard;       // node ids not heard from since the failure, not lost either: no ranks there
  std::optional<double> detect_s;      // last heartbeat -> verdict (none for a rebalance)
  std::optional<double> settle_s;      // waiting for the other nodes to be heard from or lost
  std::optional<double> checkpoint_s;  // asked for (rebalance, migrate, drain): request -> epoch committed
  bool rebalance = false;              // asked for: does not count against --max-restarts, and the
                                       // placement first tries to give every rank a slot of its own
  std::vector<scheduler::Move> moves;  // `yadokari migrate` (with rebalance): only these ranks move
  std::optional<KeptRanks> kept;       // a live move: the ranks that stay keep these processes
};
// The cluster's nodes as a restart plans on them: lost (now or earlier), unheard and draining ones
// not alive.
std::vector<ClusterNode> nodes_for_planning(const Platform& platform, const control::Coordinator& coordinator,
                                            const std::set<std::string>& lost, const std::set<std::string>& unheard);
// Entry L: the hostname logical rank L registered from ("" if it did not).
std::vector<std::string> hosts_of_ranks(const std::vector<protocol::RegisterRank>& registrations, int world_size);

RestartCause loss_of(const std::vector<membership::NodeEvent>& lost);
// The launcher failed with `launcher_code` while every node lived: one of the ranks died or ended
// with an error, and the launcher stopped the others.
RestartCause failure_of(int launcher_code);

// The placement a restart for `cause` chooses (its moves, else the policy; a rebalance first with a
// slot per rank). Throws scheduler::PlacementError when the nodes cannot hold the job.
RestartPlan plan_placement(const RestartContext& context, const RestartCause& cause,
                           const std::vector<ClusterNode>& nodes, const std::vector<std::string>& rank_hosts,
                           const scheduler::TrafficMatrix& traffic, const std::vector<std::optional<double>>& compute);

// The ranks a rebalance would move now, and to which node ids: what a live rebalance keeps the
// others' processes for (docs/flows/migrate.md, "Live moves"). Throws scheduler::PlacementError.
std::vector<scheduler::Move> rebalance_moves(const RestartContext& context, const control::Coordinator& coordinator);

// `launcher`: its pid, or 0 once it has been reaped. Throws FrontendError(failure) with a one-line
// reason ("node n2 lost; cannot restart: ...") when the job cannot go on.
Incarnation restart_elsewhere(const RestartContext& context, control::Coordinator& coordinator, pid_t launcher,
                              const RestartCause& cause, RestartTimeline& timeline);

}  // namespace yadokari::frontend
