#pragma once
// `yadokari restart --ckpt-dir D`: launch the job recorded in D/job.json again, every rank
// restoring itself from the newest committed epoch whose images all verify; the job then goes on
// checkpointing into D.
#include <optional>
#include <string>

#include "runtime/cli/checkpoint_options.hpp"
#include "runtime/cli/recovery_options.hpp"

namespace yadokari::cli {

struct RestartOptions {
  CheckpointFlags checkpoint;           // ckpt_dir is required
  RecoveryFlags recovery;               // --policy, --max-restarts, --max-oversubscribe (with --sim)
  std::optional<int> ranks;             // -n
  std::optional<std::string> hosts;     // overrides job.json's when given
  std::optional<std::string> mpi_args;  // likewise
  std::string rank_map;                 // --rank-map 2,0,1
  std::string sim;                      // --sim NAME: on the simulated cluster's live nodes
};

// Returns the job's exit code like run_job. Throws CliError or
// frontend::FrontendError before launching anything.
int restart_job(const RestartOptions& options);

}  // namespace yadokari::cli
