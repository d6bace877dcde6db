#pragma once
// `yadokari checkpoint [--job ID]`: take a checkpoint of a running job now.
// `yadokari rebalance [--job ID]`: checkpoint, re-place the ranks on the nodes alive now, restart.
#include <string>

namespace yadokari::cli {

struct CheckpointOptions {
  std::string job;  // empty: the only running job
};

// Prints "yadokari: epoch N committed" and returns 0; throws CliError(1) with the front end's
// reason otherwise.
int take_checkpoint(const CheckpointOptions& options);

// Prints the front end's "yadokari: rebalance started ..." and returns 0; CliError(1) otherwise.
int rebalance_job(const CheckpointOptions& options);

}  // namespace yadokari::cli
