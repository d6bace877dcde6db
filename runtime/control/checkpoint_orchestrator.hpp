#pragma once
// The coordinator's half of the checkpoint protocol (docs/architecture.md §4), as pure logic:
// no sockets, no clocks. Events go in (an epoch is asked for, a rank's CutReport or ImageWritten
// arrives) and come back out as the messages to broadcast to every rank, plus the epoch's end
// when it ended. The coordinator does the transport; unit tests drive this class directly.
//
// The only side effects are on the checkpoint directory (storage::EpochStore): creating the
// epoch directory, writing the MANIFEST, pruning, and removing the directory of an epoch that
// did not commit. A committed epoch is never touched except by prune.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/control/compute_ledger.hpp"
#include "protocol/codec.hpp"

namespace yadokari::control {

struct OrchestratorConfig {
  std::filesystem::path ckpt_dir;  // absolute
  std::string job_id;              // for the MANIFEST
  std::string flavour;
  std::int32_t world_size = 0;
  unsigned keep = 2;             // committed epochs kept by prune (at least 1)
  std::int32_t compression = 0;  // zstd level for the images, 0 = off
  // Node-local storage (--node-dir, the same path on every node): ranks write their images to
  // <node_dir>/<job_id>/<epoch>/ on their own node, and the epoch commits only once each image
  // has a verified replica on another node. Empty: images go to ckpt_dir/<epoch>/.
  std::filesystem::path node_dir{};
  // True when the job ends as soon as `epoch` commits (--stop-after-epoch, a checkpoint on signal,
  // a rebalance): its ranks are then held from their capture until they are stopped, never run on
  // (CheckpointRelease::run_on). Unset: never.
  std::function<bool(std::uint64_t epoch)> job_ends_at_commit{};
};

// A rank's image that the coordinator must replicate before the epoch can commit.
struct ImageToReplicate {
  std::int32_t rank = -1;
  std::uint64_t size = 0;
  std::uint64_t xxh64 = 0;
};

// How replicating one rank's image ended. `nodes`: every node now holding a verified copy (the
// writer's first); `ok` false with `error` when the copy failed.
struct ReplicaResult {
  std::int32_t rank = -1;
  bool ok = false;
  std::vector<std::string> nodes;
  std::string error;
};

// Bytes and messages from each logical rank to its heaviest partners (ImageWritten's sparse rows:
// rows[from], ascending by `to`, at most protocol::kTrafficPartners each); empty = unknown.
struct TrafficCounts {
  std::vector<std::vector<protocol::TrafficPartner>> rows;
  bool empty() const { return rows.empty(); }
};

// How an epoch ended. `message` is one line without the "yadokari: " prefix, e.g.
// "epoch 3 committed" or "checkpoint epoch 3 failed on rank 1: disk full; the last committed
// epoch is 2" — or several such "failed on rank" lines, '\n'-separated, when the rank named
// several problems (the last one ends with the last committed epoch).
struct EpochEnd {
  std::uint64_t epoch = 0;
  bool committed = false;
  std::string message;
};

// What the caller must do after an event: send `broadcast` to every rank, in order; report
// `ended` (to a waiting `yadokari checkpoint`, to --stop-after-epoch).
struct OrchestratorStep {
  std::vector<protocol::Message> broadcast;
  std::optional<EpochEnd> ended;
  std::vector<ImageToReplicate> replicate{};  // node-local storage: every image, once all are written
};

class CheckpointOrchestrator {
 public:
  // `log` gets the lines worth telling the user (failed or abandoned epochs, prune problems),
  // with their "yadokari: " prefix.
  CheckpointOrchestrator(OrchestratorConfig config, std::function<void(const std::string&)> log);

  bool in_progress() const { return phase_ != Phase::idle; }
  std::optional<std::uint64_t> current_epoch() const;

  // Starts the next epoch (EpochStore::next_epoch) and returns CheckpointPrepare. While an epoch
  // is in progress a new request is merged into it: nothing happens. If the epoch directory
  // cannot be created the epoch ends at once as failed.
  OrchestratorStep start();

  OrchestratorStep on_cut_report(const protocol::CutReport& report);
  // The front end's measure of the cut's agreement for the epoch in progress (start() to the
  // CutGo it broadcast; the orchestrator keeps no clock): goes into the MANIFEST as cut_seconds.
  void note_cut_seconds(double seconds) { cut_seconds_ = seconds; }
  // A rank's state is captured and its image is being written in the background. Once every rank
  // is captured (ImageCaptured, or ImageWritten from a rank that wrote in the foreground) the ranks
  // are released (CheckpointRelease) while the epoch goes on until every image is written.
  OrchestratorStep on_image_captured(const protocol::ImageCaptured& captured);
  OrchestratorStep on_image_written(const protocol::ImageWritten& written);
  // True once the ranks of the epoch in progress run on again (its images are still being written):
  // a new checkpoint request then waits for the epoch to end instead of merging into it.
  bool released() const { return in_progress() && released_; }
  // Node-local storage: one per image of `replicate`; the epoch commits after the last one.
  OrchestratorStep on_replica(const ReplicaResult& result);

  // Every live rank reports at once on CheckpointPrepare (its control thread does). A rank that
  // has not reported `waited_seconds` after it has most likely passed MPI_Finalize before the
  // prepare reached it; without it no cut can ever be agreed and the others would stay parked,
  // so the epoch is abandoned. Nothing happens once every rank has reported.
  OrchestratorStep abandon_if_unreported(long waited_seconds);

  // A cut in which every rank has answered and every rank waits for the others (parked, stopped at
  // a collective's gate, blocked inside a collective) can only move on a new round of targets or
  // GO, and both come from here as soon as the reports allow them: if the last report came
  // `quiet_seconds` ago, nothing will change any more and the epoch is abandoned, with each rank's
  // state in the message. A rank that runs (computes, or is between boundaries) keeps the cut
  // alive however long it takes. Nothing happens outside the cutting phase.
  OrchestratorStep abandon_if_stalled(long quiet_seconds);

  // The same quiet cut when the ranks that keep it open are still running: they have not reached an
  // MPI call since the prepare (`unreached`) while every other rank waits for them. Such a cut is
  // not abandoned (a rank that computes for minutes is no fault), but the user is told once per
  // epoch which ranks it waits for: a rank that never gets there (an endless loop, a rank stuck
  // outside MPI) would otherwise hold the job silently. The line, or nothing.
  std::optional<std::string> waiting_for_running(long quiet_seconds);

  // Traffic between the ranks from the next-to-last to the last committed epoch of this
  // incarnation (since the job started, when only one is committed); empty before any commit.
  const TrafficCounts& committed_traffic() const { return committed_traffic_; }
  // Compute time per rank over the same interval, and where it was measured; empty before any
  // commit of this incarnation.
  const ComputeTimes& committed_compute() const { return committed_compute_; }

  // The targets last sent (for tests and logs).
  const std::map<std::uint64_t, std::uint64_t>& targets() const { return targets_; }
  std::uint64_t round() const { return round_; }

 private:
  enum class Phase { idle, cutting, writing, replicating };

  // Recomputes the targets from the latest reports; CutTargets if they changed, CutGo if every
  // rank is parked at them.
  OrchestratorStep advance_cut();
  std::map<std::uint64_t, std::uint64_t> compute_targets() const;
  bool everyone_parked_at_targets() const;
  bool parked_at_targets(const protocol::CutReport& report) const;
  bool everyone_waiting() const;
  std::string cut_picture() const;  // "rank 0 parked; rank 1 at a gate on ..., behind on ..."
  OrchestratorStep finish_epoch();
  // CheckpointRelease once every rank is captured (and not yet released); else nothing.
  bool job_ends_at_commit() const;
  std::vector<protocol::Message> release_if_all_captured();
  // Ends the epoch without a MANIFEST: removes its directory, logs `line`, resumes the ranks.
  OrchestratorStep give_up(const std::string& line);
  std::string failed_on_rank(std::int32_t rank, const std::string& error) const;
  std::string last_committed_text() const;
  void note_traffic();  // after a commit: committed_traffic_ from the images' rows
  void note_chain();    // after a commit: chains_[epoch_] from images_ (and the parents' chains)

  OrchestratorConfig config_;
  std::function<void(const std::string&)> log_;
  Phase phase_ = Phase::idle;
  std::uint64_t epoch_ = 0;
  std::uint64_t highest_started_ = 0;  // no epoch number is started twice
  std::uint64_t round_ = 0;
  bool targets_sent_ = false;
  bool told_waiting_ = false;                            // waiting_for_running said it for this epoch
  std::map<std::uint64_t, std::uint64_t> targets_;       // communicator key -> collectives entered
  std::map<std::int32_t, protocol::CutReport> reports_;  // latest per rank
  // Kept up to date report by report, so that a report costs O(its counts), not a pass over every
  // rank's (a round would cost O(N^2) at N ranks; bench/scale/README.md):
  std::map<std::uint64_t, std::uint64_t> highest_entered_;  // per communicator, over reports_
  std::set<std::int32_t> gated_;                            // ranks whose report is at_gate
  std::int32_t parked_at_targets_ = 0;                      // reports parked at round_ with every count at targets_
  std::map<std::int32_t, protocol::ImageWritten> images_;
  std::set<std::int32_t> captured_;  // ranks whose state is captured (images_ ones included)
  // Of the epochs this orchestrator committed: the epochs their images are built on, from what the
  // ranks reported. Retention then reads no MANIFEST nor image of them (at 16,384 ranks it read two
  // MANIFESTs and every image's header at each commit; bench/scale/README.md).
  std::map<std::uint64_t, std::set<std::uint64_t>> chains_;
  bool released_ = false;
  double cut_seconds_ = 0.0;  // note_cut_seconds(), for the MANIFEST
  bool holding_ = false;      // the release told the ranks to stay: no CheckpointResume on commit
  std::map<std::int32_t, ReplicaResult> replicas_;
  TrafficCounts cumulative_at_commit_;  // as reported at the last commit
  TrafficCounts committed_traffic_;
  ComputeLedger compute_ledger_{config_.world_size};
  ComputeTimes committed_compute_;
};

}  // namespace yadokari::control
