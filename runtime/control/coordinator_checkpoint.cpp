// The coordinator's checkpoint transport: carries CheckpointOrchestrator's messages to the ranks,
// the ranks' CutReport/ImageWritten/CheckpointAsk to it, and answers `yadokari checkpoint`.
#include <array>
#include <chrono>
#include <variant>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "runtime/control/coordinator.hpp"
#include "runtime/control/coordinator_sockets.hpp"

namespace yadokari::control {
namespace {

// Messages must reach CLI clients unchanged: the CLI prints them after "yadokari: ".
constexpr const char* kCheckpointingOff = "checkpointing is off for this job (start it with --ckpt-dir)";

}  // namespace

std::chrono::steady_clock::time_point Coordinator::interval_deadline(double seconds) {
  if (seconds <= 0) return std::chrono::steady_clock::time_point::max();
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

void Coordinator::request_checkpoint() {
  if (!orchestrator_) return;
  if (orchestrator_->released()) {
    // The ranks run on while the last epoch's images are written: a checkpoint asked for now must
    // capture what they do from now on, so it waits for that epoch to end (backpressure).
    const std::uint64_t writing = *orchestrator_->current_epoch();
    if (told_waiting_for_epoch_ != writing)
      config_.log("yadokari: checkpoint asked for while epoch " + std::to_string(writing) +
                  " is still being written; it starts once that epoch has ended");
    told_waiting_for_epoch_ = writing;
    checkpoint_wanted_ = true;
    if (pending_request_) pending_request_->after_epoch = writing;
    return;
  }
  if (orchestrator_->in_progress()) return;  // merged into the cut in progress
  checkpoint_wanted_ = true;
}

bool Coordinator::checkpoint_in_progress() const { return orchestrator_ && orchestrator_->in_progress(); }

void Coordinator::serve_checkpoint_message(const protocol::Message& message) {
  if (const auto* ask = std::get_if<protocol::CheckpointAsk>(&message)) {
    if (!orchestrator_) {
      if (!told_checkpointing_off_)
        config_.log("yadokari: rank " + std::to_string(ask->logical_rank) + " asked for a checkpoint, but " +
                    kCheckpointingOff);
      told_checkpointing_off_ = true;
      return;
    }
    request_checkpoint();
    run_checkpoint_timers();  // start at once if every rank is there
    return;
  }
  if (!orchestrator_) return;
  if (const auto* report = std::get_if<protocol::CutReport>(&message)) {
    last_cut_report_ = std::chrono::steady_clock::now();
    apply(orchestrator_->on_cut_report(*report));
  } else if (const auto* captured = std::get_if<protocol::ImageCaptured>(&message)) {
    apply(orchestrator_->on_image_captured(*captured));
  } else if (const auto* written = std::get_if<protocol::ImageWritten>(&message)) {
    apply(orchestrator_->on_image_written(*written));
  }
}

void Coordinator::serve_checkpoint_request(const protocol::CheckpointRequest&) {
  if (!orchestrator_) {
    answer_checkpoint_request_now(protocol::CheckpointReply{false, 0, kCheckpointingOff});
    return;
  }
  pending_request_ = PendingRequest{std::chrono::steady_clock::now() + config_.checkpoint_request_timeout};
  request_checkpoint();
  run_checkpoint_timers();
}

void Coordinator::run_checkpoint_timers() {
  if (!orchestrator_) return;
  const auto now = std::chrono::steady_clock::now();
  if (pending_request_ && now >= pending_request_->deadline) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(config_.checkpoint_request_timeout);
    answer_checkpoint_request(protocol::CheckpointReply{
        false, 0, "checkpoint did not complete within " + std::to_string(seconds.count()) + " s"});
  }
  if (orchestrator_->in_progress() && now - epoch_started_ >= config_.first_report_timeout) {
    const auto waited = std::chrono::duration_cast<std::chrono::seconds>(config_.first_report_timeout);
    apply(orchestrator_->abandon_if_unreported(static_cast<long>(waited.count())));
  }
  if (orchestrator_->in_progress() && now - last_cut_report_ >= config_.cut_stall_timeout) {
    const auto quiet = std::chrono::duration_cast<std::chrono::seconds>(now - last_cut_report_);
    apply(orchestrator_->abandon_if_stalled(static_cast<long>(quiet.count())));
    if (auto note = orchestrator_->waiting_for_running(static_cast<long>(quiet.count())))
      config_.log("yadokari: " + *note);
  }
  // The interval counts from when the last rank registered: start-up (launch, MPI_Init) is no
  // progress worth a checkpoint.
  const bool all_registered = ranks_.size() == static_cast<std::size_t>(config_.world_size);
  if (all_registered && !interval_armed_) {
    interval_armed_ = true;
    next_interval_checkpoint_ = interval_deadline(config_.checkpoint->interval_seconds);
  }
  if (!orchestrator_->in_progress() && now >= next_interval_checkpoint_) checkpoint_wanted_ = true;
  // An epoch needs every rank: one that has not registered yet would never get the prepare.
  if (checkpoint_wanted_ && !orchestrator_->in_progress() && all_registered) {
    checkpoint_wanted_ = false;
    next_interval_checkpoint_ = std::chrono::steady_clock::time_point::max();
    epoch_started_ = last_cut_report_ = now;
    apply(orchestrator_->start());
  }
}

void Coordinator::apply(OrchestratorStep step) {
  for (const auto& message : step.broadcast) {
    // Every rank parked at the targets: the cut's agreement took this long (MANIFEST cut_seconds).
    if (std::holds_alternative<protocol::CutGo>(message))
      orchestrator_->note_cut_seconds(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_started_).count());
    send_to_ranks(message);
  }
  if (!step.replicate.empty()) replicate(step.replicate);
  if (!step.ended) return;
  const EpochEnd end = *step.ended;
  if (!config_.checkpoint->node_dir.empty()) send_keep_epochs();
  if (end.committed) {
    last_committed_epoch_ = end.epoch;
    if (!orchestrator_->committed_traffic().empty()) last_committed_traffic_ = orchestrator_->committed_traffic();
    if (orchestrator_->committed_compute().any()) last_committed_compute_ = orchestrator_->committed_compute();
  }
  // A request that came while this epoch was being written waits for the next one.
  if (!pending_request_ || end.epoch > pending_request_->after_epoch)
    answer_checkpoint_request(protocol::CheckpointReply{end.committed, end.epoch, end.message});
  next_interval_checkpoint_ = interval_deadline(config_.checkpoint->interval_seconds);
  if (config_.on_epoch_end) config_.on_epoch_end(end);
}

void Coordinator::answer_checkpoint_request(const protocol::CheckpointReply& reply) {
  if (!pending_request_) return;
  pending_request_.reset();
  answer_checkpoint_request_now(reply);
}

void Coordinator::answer_checkpoint_request_now(const protocol::CheckpointReply& reply) {
  const std::string bytes = protocol::encode(reply);
  (void)sockets_->status.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
}

}  // namespace yadokari::control
