#include "runtime/control/checkpoint_orchestrator.hpp"

#include <algorithm>
#include <system_error>
#include <utility>

#include "checkpoint/storage/epoch_store.hpp"
#include "checkpoint/storage/storage_error.hpp"

namespace yadokari::control {
namespace {

std::uint64_t target_of(const std::map<std::uint64_t, std::uint64_t>& targets, std::uint64_t key,
                        std::uint64_t otherwise) {
  const auto found = targets.find(key);
  return found == targets.end() ? otherwise : found->second;
}

// True when every count of `report` equals its target (keys without a target count as equal).
bool at_targets(const protocol::CutReport& report, const std::map<std::uint64_t, std::uint64_t>& targets) {
  return std::all_of(report.counts.begin(), report.counts.end(), [&](const protocol::CommCount& count) {
    return target_of(targets, count.key, count.entered) == count.entered;
  });
}

std::uint64_t entered_on(const protocol::CutReport& report, std::uint64_t key) {
  for (const auto& count : report.counts)
    if (count.key == key) return count.entered;
  return 0;
}

std::vector<protocol::CommCount> as_counts(const std::map<std::uint64_t, std::uint64_t>& targets) {
  std::vector<protocol::CommCount> counts;
  for (const auto& [key, entered] : targets) counts.push_back({key, entered});
  return counts;
}

}  // namespace

CheckpointOrchestrator::CheckpointOrchestrator(OrchestratorConfig config, std::function<void(const std::string&)> log)
    : config_(std::move(config)), log_(std::move(log)) {
  if (!log_) log_ = [](const std::string&) {};
}

std::optional<std::uint64_t> CheckpointOrchestrator::current_epoch() const {
  if (phase_ == Phase::idle) return std::nullopt;
  return epoch_;
}

OrchestratorStep CheckpointOrchestrator::start() {
  if (phase_ != Phase::idle) return {};  // merged into the epoch in progress
  const storage::EpochStore store(config_.ckpt_dir);
  try {
    // Not the number of an epoch this incarnation gave up, whose directory is gone: its ranks that
    // were captured already journal files as that generation, and a reused number would let a
    // restart from the new epoch undo what they wrote before its cut (docs/formats/manifest.md).
    epoch_ = std::max(store.next_epoch(), highest_started_ + 1);
    highest_started_ = epoch_;
  } catch (const storage::StorageError& e) {
    const std::string message = std::string("checkpoint failed: ") + e.what() + "; " + last_committed_text();
    log_("yadokari: " + message);
    return {{}, EpochEnd{0, false, message}};
  }
  round_ = 0;
  targets_sent_ = false;
  told_waiting_ = false;
  targets_.clear();
  reports_.clear();
  highest_entered_.clear();
  gated_.clear();
  parked_at_targets_ = 0;
  images_.clear();
  captured_.clear();
  released_ = false;
  holding_ = false;
  cut_seconds_ = 0.0;
  replicas_.clear();
  try {
    store.create_epoch_dir(epoch_);
  } catch (const storage::StorageError& e) {
    // Nothing was sent to the ranks: end the epoch here, without a CheckpointResume.
    const std::string message =
        "checkpoint epoch " + std::to_string(epoch_) + " failed: " + e.what() + "; " + last_committed_text();
    log_("yadokari: " + message);
    return {{}, EpochEnd{epoch_, false, message}};
  }
  phase_ = Phase::cutting;
  const std::filesystem::path image_dir =
      config_.node_dir.empty() ? store.epoch_dir(epoch_) : config_.node_dir / config_.job_id / std::to_string(epoch_);
  protocol::CheckpointPrepare prepare{epoch_, image_dir.string(), config_.compression};
  return {{prepare}, std::nullopt};
}

OrchestratorStep CheckpointOrchestrator::on_cut_report(const protocol::CutReport& report) {
  if (phase_ != Phase::cutting || report.epoch != epoch_) return {};
  if (report.logical_rank < 0 || report.logical_rank >= config_.world_size) return {};
  if (report.state == protocol::CutState::finalizing)
    return give_up("checkpoint epoch " + std::to_string(epoch_) + " abandoned: rank " +
                   std::to_string(report.logical_rank) + " reached MPI_Finalize");
  // Reports can overtake each other only across threads of the rank; the serial orders them.
  auto latest = reports_.find(report.logical_rank);
  if (latest != reports_.end() && latest->second.serial >= report.serial) return {};
  if (latest != reports_.end() && parked_at_targets(latest->second)) --parked_at_targets_;
  if (parked_at_targets(report)) ++parked_at_targets_;
  // A rank's counts only grow, so the highest of every report is the highest of the latest ones.
  for (const auto& count : report.counts)
    highest_entered_[count.key] = std::max(highest_entered_[count.key], count.entered);
  if (report.state == protocol::CutState::at_gate)
    gated_.insert(report.logical_rank);
  else
    gated_.erase(report.logical_rank);
  reports_[report.logical_rank] = report;
  return advance_cut();
}

OrchestratorStep CheckpointOrchestrator::abandon_if_unreported(long waited_seconds) {
  if (phase_ != Phase::cutting) return {};
  for (std::int32_t rank = 0; rank < config_.world_size; ++rank)
    if (!reports_.count(rank))
      return give_up("checkpoint epoch " + std::to_string(epoch_) + " abandoned: rank " + std::to_string(rank) +
                     " did not answer within " + std::to_string(waited_seconds) +
                     " s (it may have reached MPI_Finalize)");
  return {};
}

OrchestratorStep CheckpointOrchestrator::abandon_if_stalled(long quiet_seconds) {
  if (phase_ != Phase::cutting || !everyone_waiting()) return {};
  return give_up("checkpoint epoch " + std::to_string(epoch_) + " abandoned: the cut stalled (no rank moved for " +
                 std::to_string(quiet_seconds) + " s, round " + std::to_string(round_) + "): " + cut_picture());
}

std::optional<std::string> CheckpointOrchestrator::waiting_for_running(long quiet_seconds) {
  if (phase_ != Phase::cutting || told_waiting_ || static_cast<std::int32_t>(reports_.size()) != config_.world_size)
    return std::nullopt;
  // Running ranks not at a boundary since the targets went out (their last report is of round 0),
  // and running ranks that were, on their way to collectives other ranks have entered.
  std::vector<std::int32_t> computing, behind;
  for (const auto& [rank, report] : reports_) {
    const protocol::CutState state = report.state;
    if (state == protocol::CutState::unreached)
      (report.round == 0 ? computing : behind).push_back(rank);
    else if (state != protocol::CutState::parked && state != protocol::CutState::at_gate &&
             state != protocol::CutState::inside)
      return std::nullopt;
  }
  if (computing.empty() && behind.empty()) return std::nullopt;  // everyone waits: abandon_if_stalled's case
  told_waiting_ = true;
  const auto ranks = [](const std::vector<std::int32_t>& list) {
    std::string text = list.size() == 1 ? "rank " : "ranks ";
    for (std::size_t i = 0; i < list.size(); ++i) text += (i ? ", " : "") + std::to_string(list[i]);
    return text;
  };
  std::string waiting;
  if (!computing.empty()) waiting = ranks(computing) + ", not at an MPI call since the epoch began";
  if (!behind.empty())
    waiting += (waiting.empty() ? "" : "; ") + ranks(behind) +
               ", at MPI calls but short of collectives other ranks "
               "have entered";
  return "checkpoint epoch " + std::to_string(epoch_) + " is waiting for " + waiting + " (no rank moved for " +
         std::to_string(quiet_seconds) + " s, round " + std::to_string(round_) + "): " + cut_picture();
}

bool CheckpointOrchestrator::everyone_waiting() const {
  if (static_cast<std::int32_t>(reports_.size()) != config_.world_size) return false;
  return std::all_of(reports_.begin(), reports_.end(), [](const auto& entry) {
    const protocol::CutState state = entry.second.state;
    return state == protocol::CutState::parked || state == protocol::CutState::at_gate ||
           state == protocol::CutState::inside;
  });
}

std::string CheckpointOrchestrator::cut_picture() const {
  std::string text;
  for (const auto& [rank, report] : reports_) {
    if (!text.empty()) text += "; ";
    text += "rank " + std::to_string(rank) + " ";
    switch (report.state) {
      case protocol::CutState::parked:
        text += "parked";
        break;
      case protocol::CutState::at_gate:
        text += "at the gate of a collective on communicator " + std::to_string(report.gate_key);
        break;
      case protocol::CutState::inside:
        text += "inside a collective on communicator " + std::to_string(report.gate_key);
        break;
      case protocol::CutState::finalizing:
        text += "in MPI_Finalize";
        break;
      case protocol::CutState::unreached:
        text += "running";
        break;
    }
    if (report.round != round_) text += " (as of round " + std::to_string(report.round) + ")";
    for (const auto& count : report.counts)
      if (const std::uint64_t target = target_of(targets_, count.key, count.entered); target != count.entered)
        text += ", communicator " + std::to_string(count.key) + " at " + std::to_string(count.entered) + " of " +
                std::to_string(target);
  }
  return text;
}

std::map<std::uint64_t, std::uint64_t> CheckpointOrchestrator::compute_targets() const {
  // Never below what was sent already: a rank may have acted on it.
  std::map<std::uint64_t, std::uint64_t> targets = targets_;
  for (const auto& [key, entered] : highest_entered_) targets[key] = std::max(target_of(targets, key, 0), entered);
  // A rank stopped at the entry of a collective on its gate whose count already meets the
  // target, while it is behind on another communicator, can only catch up by entering that
  // collective: let it, and everyone on that communicator, go one further. Raising one target
  // can put another gated rank behind, hence the loop (it ends: each pass only raises, to values
  // bounded by the reports).
  for (bool changed = true; changed;) {
    changed = false;
    for (const std::int32_t rank : gated_) {
      const protocol::CutReport& report = reports_.at(rank);
      if (at_targets(report, targets)) continue;
      const std::uint64_t wanted = entered_on(report, report.gate_key) + 1;
      if (target_of(targets, report.gate_key, 0) < wanted) {
        targets[report.gate_key] = wanted;
        changed = true;
      }
    }
  }
  return targets;
}

bool CheckpointOrchestrator::parked_at_targets(const protocol::CutReport& report) const {
  return report.state == protocol::CutState::parked && report.round == round_ && at_targets(report, targets_);
}

bool CheckpointOrchestrator::everyone_parked_at_targets() const {
  return static_cast<std::int32_t>(reports_.size()) == config_.world_size && parked_at_targets_ == config_.world_size;
}

OrchestratorStep CheckpointOrchestrator::advance_cut() {
  // Targets computed from a partial picture could be too low for a rank not heard from yet.
  if (static_cast<std::int32_t>(reports_.size()) != config_.world_size) return {};
  OrchestratorStep step;
  auto targets = compute_targets();
  if (!targets_sent_ || targets != targets_) {
    targets_ = std::move(targets);
    targets_sent_ = true;
    ++round_;
    parked_at_targets_ = 0;  // no report can be at the new round yet
    step.broadcast.push_back(protocol::CutTargets{epoch_, round_, as_counts(targets_)});
    return step;  // every rank must answer the new round before anyone can be parked at it
  }
  if (everyone_parked_at_targets()) {
    phase_ = Phase::writing;
    step.broadcast.push_back(protocol::CutGo{epoch_});
  }
  return step;
}

bool CheckpointOrchestrator::job_ends_at_commit() const {
  return config_.job_ends_at_commit && config_.job_ends_at_commit(epoch_);
}

std::vector<protocol::Message> CheckpointOrchestrator::release_if_all_captured() {
  if (released_ || static_cast<std::int32_t>(captured_.size()) != config_.world_size) return {};
  released_ = true;
  holding_ = job_ends_at_commit();
  return {protocol::CheckpointRelease{epoch_, !holding_}};
}

OrchestratorStep CheckpointOrchestrator::on_image_captured(const protocol::ImageCaptured& captured) {
  if (phase_ != Phase::writing || captured.epoch != epoch_) return {};
  if (captured.logical_rank < 0 || captured.logical_rank >= config_.world_size) return {};
  captured_.insert(captured.logical_rank);
  return {release_if_all_captured(), std::nullopt};
}

OrchestratorStep CheckpointOrchestrator::on_image_written(const protocol::ImageWritten& written) {
  if (phase_ != Phase::writing || written.epoch != epoch_) return {};
  if (written.logical_rank < 0 || written.logical_rank >= config_.world_size) return {};
  images_.emplace(written.logical_rank, written);  // the first answer of a rank counts
  captured_.insert(written.logical_rank);
  if (static_cast<std::int32_t>(images_.size()) != config_.world_size) return {release_if_all_captured(), std::nullopt};
  // Every image is in: the epoch ends now (CheckpointResume), or after the replicas, for which the
  // ranks need not wait.
  for (const auto& [rank, image] : images_)
    if (!image.ok) return give_up(failed_on_rank(rank, image.error));
  if (config_.node_dir.empty()) return finish_epoch();
  phase_ = Phase::replicating;
  OrchestratorStep step;
  step.broadcast = release_if_all_captured();
  for (const auto& [rank, image] : images_) step.replicate.push_back({rank, image.size, image.xxh64});
  return step;
}

OrchestratorStep CheckpointOrchestrator::on_replica(const ReplicaResult& result) {
  if (phase_ != Phase::replicating || !images_.count(result.rank)) return {};
  replicas_.emplace(result.rank, result);
  if (replicas_.size() != images_.size()) return {};
  for (const auto& [rank, replica] : replicas_)
    if (!replica.ok)
      return give_up("checkpoint epoch " + std::to_string(epoch_) + " failed: replicating rank " +
                     std::to_string(rank) + "'s image: " + replica.error + "; " + last_committed_text());
  return finish_epoch();
}

OrchestratorStep CheckpointOrchestrator::finish_epoch() {
  const std::string epoch_text = std::to_string(epoch_);

  const storage::EpochStore store(config_.ckpt_dir);
  storage::Manifest manifest;
  manifest.epoch = epoch_;
  manifest.job_id = config_.job_id;
  manifest.world_size = static_cast<std::uint32_t>(config_.world_size);
  manifest.flavour = config_.flavour;
  manifest.cut_seconds = cut_seconds_;
  for (const auto& [rank, image] : images_) {
    const auto r = static_cast<std::uint32_t>(rank);
    // The file name is ours, not the rank's: the MANIFEST must name rank-<L>.img.
    storage::ManifestImage entry;
    entry.rank = r;
    entry.file = storage::EpochStore::rank_image_name(r);
    entry.size = image.size;
    entry.xxh64 = image.xxh64;
    entry.parent_epoch = image.parent_epoch;
    entry.layout = image.layout;
    entry.drain_seconds = image.drain_seconds;
    entry.write_seconds = image.write_seconds;
    entry.pause_seconds = image.pause_seconds;
    if (const auto replica = replicas_.find(rank); replica != replicas_.end()) entry.nodes = replica->second.nodes;
    manifest.images.push_back(std::move(entry));
  }
  try {
    store.commit(epoch_, manifest);
  } catch (const storage::StorageError& e) {
    return give_up("checkpoint epoch " + epoch_text + " failed: " + e.what() + "; " + last_committed_text());
  }
  note_chain();
  try {
    for (const std::uint64_t removed : store.prune(config_.keep, chains_)) chains_.erase(removed);
  } catch (const storage::StorageError& e) {
    log_(std::string("yadokari: ") + e.what());  // the new epoch is committed all the same
  }
  note_traffic();
  committed_compute_ = compute_ledger_.on_commit(epoch_, images_);
  for (auto& [rank, image] : images_) image.traffic = {};  // note_traffic has them
  phase_ = Phase::idle;
  EpochEnd end{epoch_, true, "epoch " + epoch_text + " committed"};
  // Held ranks stay until the job stops them: resumed, they would run past their checkpoint.
  if (holding_ || job_ends_at_commit()) return {{}, end};
  return {{protocol::CheckpointResume{epoch_, true}}, end};
}

void CheckpointOrchestrator::note_chain() {
  std::set<std::uint64_t> chain;
  for (const auto& [rank, image] : images_)
    if (image.parent_epoch != 0) chain.insert(image.parent_epoch);
  for (const std::uint64_t parent : std::set<std::uint64_t>(chain)) {
    if (const auto known = chains_.find(parent); known != chains_.end()) {
      chain.insert(known->second.begin(), known->second.end());
    } else if (const auto read = storage::EpochStore(config_.ckpt_dir).ancestors(parent)) {
      chain.insert(read->begin(), read->end());  // committed by an earlier front end
    } else {
      return;  // unknown: retention reads this epoch's chain itself (and keeps everything if it cannot)
    }
  }
  chains_[epoch_] = std::move(chain);
}

void CheckpointOrchestrator::note_traffic() {
  const auto world = static_cast<std::size_t>(config_.world_size);
  TrafficCounts cumulative{std::vector<std::vector<protocol::TrafficPartner>>(world)};
  bool any = false;
  for (const auto& [rank, image] : images_) {
    if (rank < 0 || static_cast<std::size_t>(rank) >= world) continue;
    auto& row = cumulative.rows[static_cast<std::size_t>(rank)];
    for (const auto& partner : image.traffic)
      if (partner.to >= 0 && static_cast<std::size_t>(partner.to) < world) row.push_back(partner);
    std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.to < y.to; });
    any = any || !row.empty();
  }
  // No rank measured anything (ranks that report no traffic): unknown, not "no traffic".
  if (!any) {
    committed_traffic_ = cumulative_at_commit_ = {};
    return;
  }
  // The last interval: what was sent since the previous commit (counters only grow). A partner
  // that was not among a rank's heaviest at the previous commit counts whole: an upper bound.
  committed_traffic_ = cumulative;
  if (cumulative_at_commit_.rows.size() == world)
    for (std::size_t from = 0; from < world; ++from) {
      const auto& before = cumulative_at_commit_.rows[from];
      auto& row = committed_traffic_.rows[from];
      for (auto& partner : row) {
        const auto it = std::lower_bound(before.begin(), before.end(), partner.to,
                                         [](const protocol::TrafficPartner& p, std::int32_t to) { return p.to < to; });
        if (it == before.end() || it->to != partner.to) continue;
        partner.bytes -= std::min(it->bytes, partner.bytes);
        partner.messages -= std::min(it->messages, partner.messages);
      }
      std::erase_if(row, [](const protocol::TrafficPartner& p) { return p.bytes == 0 && p.messages == 0; });
    }
  cumulative_at_commit_ = std::move(cumulative);
}

// A refused checkpoint names each problem on its own line (checkpoint/memory/README.md, "Refused,
// with the reason"): one "failed on rank R: <problem>" line each, the last committed epoch once.
std::string CheckpointOrchestrator::failed_on_rank(std::int32_t rank, const std::string& error) const {
  const std::string prefix =
      "checkpoint epoch " + std::to_string(epoch_) + " failed on rank " + std::to_string(rank) + ": ";
  std::string text;
  std::size_t start = 0;
  while (start <= error.size()) {
    const std::size_t end = std::min(error.find('\n', start), error.size());
    if (end > start || error.empty()) text += (text.empty() ? "" : "\n") + prefix + error.substr(start, end - start);
    start = end + 1;
  }
  return text + "; " + last_committed_text();
}

OrchestratorStep CheckpointOrchestrator::give_up(const std::string& line) {
  const storage::EpochStore store(config_.ckpt_dir);
  std::error_code error;
  // Never remove a committed epoch: if the MANIFEST made it to disk after all, leave it be.
  if (!std::filesystem::exists(store.epoch_dir(epoch_) / "MANIFEST", error))
    std::filesystem::remove_all(store.epoch_dir(epoch_), error);
  for (std::size_t start = 0; start < line.size();) {  // every line with its prefix
    const std::size_t end = std::min(line.find('\n', start), line.size());
    log_("yadokari: " + line.substr(start, end - start));
    start = end + 1;
  }
  phase_ = Phase::idle;
  return {{protocol::CheckpointResume{epoch_, false}}, EpochEnd{epoch_, false, line}};
}

std::string CheckpointOrchestrator::last_committed_text() const {
  const auto committed = storage::EpochStore(config_.ckpt_dir).committed_epochs();
  if (committed.empty()) return "no epoch is committed yet";
  return "the last committed epoch is " + std::to_string(committed.back());
}

}  // namespace yadokari::control
