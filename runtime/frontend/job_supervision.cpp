#include "runtime/frontend/job_supervision.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "runtime/frontend/child_process.hpp"
#include "runtime/frontend/job_stopper.hpp"
#include "runtime/frontend/spared_by_loss.hpp"

namespace yadokari::frontend {
namespace {

constexpr std::chrono::milliseconds kServeInterval{50};

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

double seconds_between(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

Outcome ended(int exit_code) {
  Outcome outcome;
  outcome.exit_code = exit_code;
  outcome.launcher_reaped = true;
  return outcome;
}

Outcome lost_nodes(SettledMembership settled, bool launcher_reaped) {
  Outcome outcome;
  outcome.lost = std::move(settled.lost);
  outcome.unheard = std::move(settled.unheard);
  outcome.settle_s = settled.seconds;
  outcome.launcher_reaped = launcher_reaped;
  return outcome;
}

Outcome rebalance_now() {
  Outcome outcome;
  outcome.rebalance = true;
  return outcome;
}

Outcome failed(int launcher_code, SettledMembership settled) {
  Outcome outcome;
  outcome.launcher_reaped = true;
  outcome.failed_with = launcher_code;
  outcome.unheard = std::move(settled.unheard);
  outcome.settle_s = settled.seconds;
  return outcome;
}

// True (and said in one line) when no rank of this launch ran on the lost nodes: the job goes on.
bool goes_on_without(const control::Coordinator& coordinator, const std::vector<membership::NodeEvent>& lost) {
  std::vector<std::string> hostnames;
  std::string names;
  for (const auto& event : lost) {
    hostnames.push_back(coordinator.agent_hostname(event.node));
    names += (names.empty() ? "" : ", ") + event.node;
  }
  if (!launch_spared_by_loss(coordinator.registrations(), hostnames)) return false;
  const bool one = lost.size() == 1;
  std::fprintf(stderr, "yadokari: %s %s lost; no rank of the job ran there, so the job goes on without %s\n",
               one ? "node" : "nodes", names.c_str(), one ? "it" : "them");
  return true;
}

// Heartbeats each node must send after a failure to count as alive: a node killed just before it
// may still have one on its way.
constexpr std::uint64_t kBeatsToSettle = 2;

}  // namespace

std::string rebalance_cause(const RebalanceState& rebalance) {
  if (!rebalance.cause.empty()) return rebalance.cause;
  return rebalance.moves.empty() ? "rebalance" : "migrate " + scheduler::moves_text(rebalance.moves);
}

Outcome supervise(pid_t launcher, TerminationSignals& signals, control::Coordinator& coordinator,
                  const std::optional<PlannedStop>& stop, std::chrono::milliseconds loss_after,
                  const RebalanceState& rebalance, const std::function<bool(const ReceivedSignal&)>& take_over_signal,
                  const std::function<bool()>& restart_failures, const std::function<void()>& each_turn) {
  const bool watch_nodes = loss_after.count() > 0;
  const std::chrono::milliseconds settle_limit = 3 * loss_after + std::chrono::milliseconds(1000);
  int stopped_by = 0;
  try {
    for (;;) {
      coordinator.poll(kServeInterval);
      each_turn();
      if (stop) {
        stop_whole_job(launcher, local_rank_pids(coordinator));
        std::fprintf(stderr, "yadokari: %s\n", stop->line.c_str());
        return ended(stop->exit_code);
      }
      while (auto received = signals.take()) {
        if (take_over_signal(*received)) continue;
        stopped_by = received->number;
        // A terminal's Ctrl-C already reached the launcher: it is in our process group.
        if (!received->from_terminal) kill(launcher, received->number);
      }
      if (watch_nodes && stopped_by == 0)
        if (auto lost = coordinator.take_lost_nodes(); !lost.empty() && !goes_on_without(coordinator, lost))
          return lost_nodes(settle_membership(coordinator, std::move(lost), settle_limit), false);
      if (rebalance.ready && stopped_by == 0) return rebalance_now();
      if (auto code = try_reap(launcher)) {
        // What the ranks said just before they ended may still be on its way (a restarted job
        // that had nothing left to do restores and ends at once): read it, so that the
        // restart's timeline and the last reports are not lost with the job.
        for (int i = 0; i < 5; ++i) {
          coordinator.poll(std::chrono::milliseconds(20));
          each_turn();
        }
        if (watch_nodes && *code != 0 && stopped_by == 0) {
          // The launcher may have seen a node die before the heartbeats tell: nothing is planned
          // before every node has spoken since or been declared lost.
          SettledMembership settled = settle_membership(coordinator, coordinator.take_lost_nodes(), settle_limit);
          if (!settled.lost.empty()) return lost_nodes(std::move(settled), true);
          // No node was lost: a rank died (killed, crashed) or ended with an error, and the
          // launcher took the rest of the job down with it.
          if (restart_failures()) return failed(*code, std::move(settled));
        }
        // A job told to stop by signal N ends with 128+N, as a shell reports it, whatever the
        // launcher made of it: Open MPI's mpirun exits 1 on SIGTERM, Hydra 15 or even 0.
        return ended(stopped_by != 0 ? 128 + stopped_by : *code);
      }
    }
  } catch (...) {
    kill(launcher, SIGTERM);  // do not leave a job running that nobody supervises
    throw;
  }
}

std::optional<std::string> restart_stalled(const RestartTimeline& timeline,
                                           const control::IncarnationProgress& progress,
                                           std::chrono::steady_clock::time_point launched, std::size_t world,
                                           std::chrono::steady_clock::time_point now) {
  if (progress.restored >= world) return std::nullopt;
  const auto last = std::max({launched, progress.last_registered, progress.last_restored});
  if (now - last < kRestartStall) return std::nullopt;
  return "restart " + std::to_string(timeline.number) + " (" + timeline.cause +
         ") stalled: " + std::to_string(progress.registered) + " of " + std::to_string(world) +
         " ranks registered and " + std::to_string(progress.restored) + " restored, none for " +
         std::to_string(kRestartStall.count()) + " s; stopping the job (epoch " + std::to_string(timeline.epoch) +
         " is left as it is: yadokari restart tries again from it)";
}

SettledMembership settle_membership(control::Coordinator& coordinator, std::vector<membership::NodeEvent> lost,
                                    std::chrono::milliseconds limit) {
  SettledMembership settled;
  settled.lost = std::move(lost);
  const membership::BeatCounts mark = coordinator.heartbeat_mark();
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + limit;
  for (;;) {
    coordinator.poll(kServeInterval);
    for (auto& event : coordinator.take_lost_nodes()) settled.lost.push_back(std::move(event));
    settled.unheard = coordinator.nodes_unsettled_since(mark, kBeatsToSettle);
    const auto now = std::chrono::steady_clock::now();
    if (settled.unheard.empty() || now >= deadline) {
      settled.seconds = seconds_between(started, now);
      return settled;
    }
  }
}

void follow_restart(RestartTimeline& timeline, const control::Coordinator& coordinator,
                    std::chrono::steady_clock::time_point launched, std::size_t world, bool& logged) {
  const control::IncarnationProgress& progress = coordinator.progress();
  if (!timeline.launch_s && progress.registered == world) {
    timeline.init_s = progress.max_init_seconds;
    timeline.launch_s = std::max(0.0, seconds_between(launched, progress.last_registered) - progress.max_init_seconds);
  }
  if (!timeline.restore_s && progress.restored == world) timeline.restore_s = progress.max_restore_seconds;
  if (!logged && timeline.restore_s && timeline.launch_s) {
    logged = true;
    std::fprintf(stderr, "yadokari: %s\n", timeline_line(timeline).c_str());
  }
}

void report_restore(const control::Coordinator& coordinator, std::size_t world, bool& logged) {
  const control::IncarnationProgress& progress = coordinator.progress();
  if (logged || progress.restored != world) return;
  logged = true;
  std::fprintf(stderr,
               "yadokari: %zu ranks restored from their images: MPI_Init %.3f s, restore %.3f s (slowest rank)\n",
               world, progress.max_init_seconds, progress.max_restore_seconds);
}

}  // namespace yadokari::frontend
