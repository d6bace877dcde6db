#pragma once
// Checkpoint on signal: what `yadokari run` does when it is told the job's time is nearly up.
// SIGUSR1 (what `sbatch --signal=B:USR1@T` sends to the batch shell) and a first SIGTERM sent to
// the front end alone ask for an epoch; once one commits the whole job is stopped and the front
// end exits kStoppedOnSignal, so that a batch script can requeue it and `yadokari run` on the same
// --ckpt-dir continues from that epoch. Pure logic: the supervisor feeds it signals and epoch ends
// and carries out what it answers (job_launch.cpp).
#include <optional>
#include <string>

#include "runtime/control/checkpoint_orchestrator.hpp"
#include "runtime/frontend/termination_signals.hpp"

namespace yadokari::frontend {

// A job ended on purpose once an epoch committed: its exit code and the line that says why.
struct PlannedStop {
  int exit_code = 0;
  std::string line;  // without the "yadokari: " prefix
};

class SignalCheckpoint {
 public:
  // How often an epoch that did not commit is tried again before the signal is given up.
  static constexpr int kAttempts = 3;

  enum class Action {
    forward,     // as before: the signal goes on to the launcher
    checkpoint,  // ask for an epoch now
    ignore,      // nothing to do (said why in `line`, if anything)
  };
  struct Reaction {
    Action action = Action::forward;
    std::string line;  // one line for stderr (without "yadokari: "), or empty
  };

  explicit SignalCheckpoint(bool checkpointing) : checkpointing_(checkpointing) {}

  Reaction on_signal(const ReceivedSignal& signal);

  struct AfterEpoch {
    std::optional<PlannedStop> stop;  // stop the job now, with this code and line
    bool retry = false;               // ask for another epoch
    std::string line;                 // one line for stderr, or empty
  };
  AfterEpoch on_epoch_end(const control::EpochEnd& end);

  // A signal asked for an epoch that has not committed yet.
  bool waiting() const { return signal_ != 0; }

 private:
  bool checkpointing_;
  int signal_ = 0;  // the signal being served, 0: none
  int failed_epochs_ = 0;
};

}  // namespace yadokari::frontend
