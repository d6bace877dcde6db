#pragma once
// One launch of a job, supervised to its end: the control plane served, signals forwarded,
// --stop-after-epoch and checkpoint on signal, and (with node agents) the events that end a launch
// early so that the job can be restarted elsewhere: a lost node, a rank that died (the launcher
// failed), or a rebalance whose epoch committed.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/control/coordinator.hpp"
#include "runtime/frontend/restart_timeline.hpp"
#include "runtime/frontend/signal_checkpoint.hpp"
#include "runtime/frontend/termination_signals.hpp"
#include "runtime/membership/heartbeat_tracker.hpp"
#include "scheduler/moves.hpp"

namespace yadokari::frontend {

// How one launch ended: the job's exit code, or a reason to restart it elsewhere (the launcher
// may still run then).
struct Outcome {
  std::optional<int> exit_code;
  std::vector<membership::NodeEvent> lost;
  bool launcher_reaped = false;
  bool rebalance = false;  // `yadokari rebalance`: its epoch is committed, restart elsewhere now
  // The launcher failed (a rank died or ended with an error) with no node lost, and the job may be
  // restarted from its newest epoch: the launcher's exit code.
  std::optional<int> failed_with;
  // Nodes neither heard from nor declared lost by the time the restart had to be planned
  // (settle_membership): no ranks go there.
  std::vector<std::string> unheard;
  // How long the front end waited for membership to settle before returning (settle_membership):
  // unset when it did not wait (a rebalance, a job that ended).
  std::optional<double> settle_s;
};

// `yadokari rebalance` or `yadokari migrate`, from the request to the committed epoch it waits for.
struct RebalanceState {
  static constexpr int kAttempts = 3;  // checkpoints tried before a rebalance is given up
  bool wanted = false;
  bool ready = false;
  int failed_epochs = 0;
  std::vector<scheduler::Move> moves;                // a migrate: only these ranks move
  std::string cause;                                 // the restart's cause when not "rebalance" or "migrate ..."
  std::chrono::steady_clock::time_point asked_at{};  // when the checkpoint was asked for
  std::optional<double> checkpoint_s;                // asked_at -> the epoch committed
  std::uint64_t epoch = 0;                           // the epoch committed for it
  bool live = false;                                 // `migrate --live`: the ranks that stay keep their processes
};

// "rebalance", "migrate ranks 2,3 to n3" or the cause a move was begun with ("drain of n3: ...").
std::string rebalance_cause(const RebalanceState& rebalance);

// Runs the launcher to its end while serving the control plane. `loss_after` > 0 (node agents):
// a lost node ends the launch too, and a launcher that fails first (it saw its ranks die) waits
// for membership to settle (settle_membership), so that a node loss is restarted rather than
// reported as the application's failure, and no restart is planned onto a node that just died. If no node was lost either and `restart_failures()` says the job can
// be restarted (it has a committed epoch), the failure is returned as `failed_with` instead of
// ending the job: a rank's death restarts it like a node's (docs/flows/node-loss.md). A job told to
// stop by a signal is never restarted. `each_turn` runs after every poll.
// `stop`, once set (from inside the coordinator's poll: --stop-after-epoch, checkpoint on signal),
// ends the whole job with its code and line. `take_over_signal` sees every signal first; one it
// takes (returns true) is not forwarded to the launcher.
Outcome supervise(pid_t launcher, TerminationSignals& signals, control::Coordinator& coordinator,
                  const std::optional<PlannedStop>& stop, std::chrono::milliseconds loss_after,
                  const RebalanceState& rebalance, const std::function<bool(const ReceivedSignal&)>& take_over_signal,
                  const std::function<bool()>& restart_failures, const std::function<void()>& each_turn);

// A restarted job whose ranks have stopped coming up: none registered or restored for this long
// (counted from the launch). A restart that is still reading large images keeps reporting ranks;
// one that waits for a node it will never reach does not, and must not hold the job for ever.
inline constexpr std::chrono::seconds kRestartStall{180};

// The line to stop the job with when the current restart has stalled (kRestartStall without a
// rank registering or restoring before all are restored), else nullopt.
// `progress` is the coordinator's count of the ranks of this incarnation (Coordinator::progress()).
std::optional<std::string> restart_stalled(const RestartTimeline& timeline,
                                           const control::IncarnationProgress& progress,
                                           std::chrono::steady_clock::time_point launched, std::size_t world,
                                           std::chrono::steady_clock::time_point now);

// What the nodes are once membership has settled after a failure.
struct SettledMembership {
  std::vector<membership::NodeEvent> lost;  // verdicts taken meanwhile (and those passed in)
  std::vector<std::string> unheard;         // neither heard from nor lost when `limit` passed
  double seconds = 0;                       // how long it took
};
// Serves the control plane until every node has either been heard from again since now (twice: one
// heartbeat may have been on its way from a node that has just died) or been declared lost, at
// most `limit` (the tracker settles every node within two loss periods plus its lateness grace,
// one when some node still speaks; the limit covers a front end that was itself descheduled). `lost` are the verdicts
// already taken.
SettledMembership settle_membership(control::Coordinator& coordinator, std::vector<membership::NodeEvent> lost,
                                    std::chrono::milliseconds limit);

// Fills in the launch/MPI_Init/restore phases of the current restart as the ranks get there,
// and logs the timeline once it is complete (sets `logged`).
void follow_restart(RestartTimeline& timeline, const control::Coordinator& coordinator,
                    std::chrono::steady_clock::time_point launched, std::size_t world, bool& logged);

// For a job launched from an epoch (`yadokari restart`): once every rank has restored its image,
// logs how long the slowest rank took in MPI_Init and in its restore (sets `logged`).
void report_restore(const control::Coordinator& coordinator, std::size_t world, bool& logged);

}  // namespace yadokari::frontend
