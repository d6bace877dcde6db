#include "runtime/frontend/signal_checkpoint.hpp"

#include <signal.h>

#include "runtime/frontend/launch_request.hpp"

namespace yadokari::frontend {
namespace {

std::string signal_name(int number) {
  switch (number) {
    case SIGUSR1:
      return "SIGUSR1";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "signal " + std::to_string(number);
  }
}

}  // namespace

SignalCheckpoint::Reaction SignalCheckpoint::on_signal(const ReceivedSignal& signal) {
  if (signal.number == SIGUSR1) {
    if (!checkpointing_)
      return {Action::ignore, "SIGUSR1 ignored: checkpointing is off for this job (start it with --ckpt-dir)"};
    if (signal_ != 0) return {Action::ignore, ""};  // one epoch serves every request
    signal_ = SIGUSR1;
    failed_epochs_ = 0;
    return {Action::checkpoint, "SIGUSR1: checkpoint, then stop the job"};
  }
  // SIGTERM from a terminal also reached the launcher (same process group): the job is ending
  // already. A second SIGTERM, or one without checkpoints, stops the job at once as before.
  if (signal.number == SIGTERM && checkpointing_ && !signal.from_terminal && signal_ != SIGTERM) {
    signal_ = SIGTERM;
    failed_epochs_ = 0;
    return {Action::checkpoint, "SIGTERM: checkpoint, then stop the job (another SIGTERM stops it at once)"};
  }
  return {Action::forward, ""};
}

SignalCheckpoint::AfterEpoch SignalCheckpoint::on_epoch_end(const control::EpochEnd& end) {
  if (signal_ == 0) return {};
  const std::string name = signal_name(signal_);
  if (end.committed) {
    signal_ = 0;
    return {PlannedStop{kStoppedOnSignal, "stopped after epoch " + std::to_string(end.epoch) + " on " + name +
                                              "; run the same command again to continue from it"},
            false, ""};
  }
  if (++failed_epochs_ < kAttempts)
    return {std::nullopt, true, name + ": epoch " + std::to_string(end.epoch) + " did not commit; trying another"};
  const int given_up = signal_;
  signal_ = 0;
  const std::string why = std::to_string(kAttempts) + " checkpoints in a row did not commit";
  // A SIGTERM asked for the job to end: it ends, without the epoch it could not get.
  if (given_up == SIGTERM)
    return {PlannedStop{128 + SIGTERM, "SIGTERM: " + why + "; the job is stopped without a new epoch"}, false, ""};
  return {std::nullopt, false, "SIGUSR1 given up: " + why + "; the job goes on"};
}

}  // namespace yadokari::frontend
