// Checkpoint on signal (frontend/signal_checkpoint.hpp): which signals ask for an epoch, when the
// job is stopped and with which code, and when a signal is given up.
#include <signal.h>

#include <catch2/catch.hpp>

#include "runtime/frontend/launch_request.hpp"
#include "runtime/frontend/signal_checkpoint.hpp"

using yadokari::control::EpochEnd;
using yadokari::frontend::ReceivedSignal;
using yadokari::frontend::SignalCheckpoint;
using Action = SignalCheckpoint::Action;

TEST_CASE("SIGUSR1 asks for an epoch and stops the job with 79 once one commits", "[signal-checkpoint]") {
  SignalCheckpoint policy(true);
  const auto reaction = policy.on_signal(ReceivedSignal{SIGUSR1, false});
  CHECK(reaction.action == Action::checkpoint);
  CHECK(reaction.line == "SIGUSR1: checkpoint, then stop the job");
  CHECK(policy.waiting());
  // A second one while waiting asks for nothing more.
  CHECK(policy.on_signal(ReceivedSignal{SIGUSR1, false}).action == Action::ignore);
  const auto after = policy.on_epoch_end(EpochEnd{4, true, "epoch 4 committed"});
  REQUIRE(after.stop);
  CHECK(after.stop->exit_code == yadokari::frontend::kStoppedOnSignal);
  CHECK(after.stop->exit_code == 79);
  CHECK(after.stop->line == "stopped after epoch 4 on SIGUSR1; run the same command again to continue from it");
  CHECK_FALSE(policy.waiting());
}

TEST_CASE("an epoch that ends before any signal stops nothing", "[signal-checkpoint]") {
  SignalCheckpoint policy(true);
  const auto after = policy.on_epoch_end(EpochEnd{1, true, "epoch 1 committed"});
  CHECK_FALSE(after.stop);
  CHECK_FALSE(after.retry);
}

TEST_CASE("SIGUSR1 without checkpoints is ignored with the reason", "[signal-checkpoint]") {
  SignalCheckpoint policy(false);
  const auto reaction = policy.on_signal(ReceivedSignal{SIGUSR1, false});
  CHECK(reaction.action == Action::ignore);
  CHECK(reaction.line == "SIGUSR1 ignored: checkpointing is off for this job (start it with --ckpt-dir)");
  CHECK_FALSE(policy.waiting());
}

TEST_CASE("failed epochs are retried, then a SIGUSR1 is given up and the job goes on", "[signal-checkpoint]") {
  SignalCheckpoint policy(true);
  policy.on_signal(ReceivedSignal{SIGUSR1, false});
  auto after = policy.on_epoch_end(EpochEnd{2, false, "checkpoint epoch 2 abandoned: ..."});
  CHECK(after.retry);
  CHECK(after.line == "SIGUSR1: epoch 2 did not commit; trying another");
  after = policy.on_epoch_end(EpochEnd{3, false, "..."});
  CHECK(after.retry);
  after = policy.on_epoch_end(EpochEnd{4, false, "..."});
  CHECK_FALSE(after.retry);
  CHECK_FALSE(after.stop);
  CHECK(after.line == "SIGUSR1 given up: 3 checkpoints in a row did not commit; the job goes on");
  CHECK_FALSE(policy.waiting());
}

TEST_CASE("a first SIGTERM to the front end checkpoints, a second one or one from the terminal is forwarded",
          "[signal-checkpoint]") {
  SignalCheckpoint policy(true);
  CHECK(policy.on_signal(ReceivedSignal{SIGTERM, true}).action == Action::forward);
  const auto first = policy.on_signal(ReceivedSignal{SIGTERM, false});
  CHECK(first.action == Action::checkpoint);
  CHECK(first.line == "SIGTERM: checkpoint, then stop the job (another SIGTERM stops it at once)");
  CHECK(policy.on_signal(ReceivedSignal{SIGTERM, false}).action == Action::forward);
  CHECK(policy.on_signal(ReceivedSignal{SIGINT, false}).action == Action::forward);
  CHECK(policy.on_signal(ReceivedSignal{SIGHUP, false}).action == Action::forward);
}

TEST_CASE("SIGTERM without checkpoints is forwarded as before", "[signal-checkpoint]") {
  SignalCheckpoint policy(false);
  CHECK(policy.on_signal(ReceivedSignal{SIGTERM, false}).action == Action::forward);
}

TEST_CASE("a SIGTERM whose epochs all fail stops the job with 143", "[signal-checkpoint]") {
  SignalCheckpoint policy(true);
  policy.on_signal(ReceivedSignal{SIGTERM, false});
  policy.on_epoch_end(EpochEnd{2, false, "..."});
  policy.on_epoch_end(EpochEnd{3, false, "..."});
  const auto after = policy.on_epoch_end(EpochEnd{4, false, "..."});
  REQUIRE(after.stop);
  CHECK(after.stop->exit_code == 143);
  CHECK(after.stop->line == "SIGTERM: 3 checkpoints in a row did not commit; the job is stopped without a new epoch");
}
