#pragma once
// `yadokari checkpoint [--job ID]`: take a checkpoint of a running job now.
// `yadokari rebalance [--job ID]`: checkpoint, re-place the ranks on the nodes alive now, restart.
// `yadokari migrate --ranks 2,3 --to n4 [--job ID]`: move those ranks there, the others stay.
#include <cstdint>
#include <string>
#include <vector>

namespace yadokari::cli {

struct CheckpointOptions {
  std::string job;  // empty: the only running job
};

// Prints "yadokari: epoch N committed" and returns 0; throws CliError(1) with the front end's
// reason otherwise.
int take_checkpoint(const CheckpointOptions& options);

// Prints the front end's "yadokari: rebalance started ..." and returns 0; CliError(1) otherwise.
int rebalance_job(const CheckpointOptions& options);

struct MigrateOptions {
  std::string job;                  // empty: the only running job
  std::vector<std::int32_t> ranks;  // logical ranks, as the application numbers them
  std::string to;                   // node id ("n4")
  bool live = false;                // the other ranks keep their processes (docs/flows/migrate.md)
};

// Prints the front end's "yadokari: migration of ranks ... started ..." and returns 0;
// CliError(1) with the front end's reason (no such node, not enough slots...) otherwise.
int migrate_ranks(const MigrateOptions& options);

}  // namespace yadokari::cli
