#pragma once
// `yadokari run`: launch an MPI program with the shim preloaded and the control plane up.
#include <string>
#include <vector>

#include "runtime/cli/checkpoint_options.hpp"
#include "runtime/cli/recovery_options.hpp"
#include "runtime/launch/launcher.hpp"

namespace yadokari::cli {

struct RunOptions {
  int ranks = 0;
  std::string mpi = "auto";          // openmpi | mpich | auto
  std::string hosts;                 // h1:slots,h2:slots
  std::string hostfile;              // --hostfile F: the same, one host per line
  std::string mpi_args;              // extra launcher arguments, shell-quoted
  std::string sim;                   // --sim NAME: on the simulated cluster NAME (`yadokari sim`)
  CheckpointFlags checkpoint;        // --ckpt-dir, --interval, ...
  bool fresh = false;                // --fresh: start over in a --ckpt-dir an earlier run left epochs in
  RecoveryFlags recovery;            // --policy, --max-restarts, --max-oversubscribe (with --sim)
  std::vector<std::string> command;  // APP ARGS...
};

// Returns the application's exit code (128+N if the launcher was killed by signal N, 75 after
// --stop-after-epoch, 79 after a checkpoint on signal). With --ckpt-dir D holding a committed epoch
// of the same program, arguments and -n, continues from it (frontend/previous_run.hpp). Throws CliError or
// frontend::FrontendError for anything that stops the job from starting.
int run_job(const RunOptions& options);

// --hosts / --mpi-args, parsed; CliError(usage) for bad ones. Shared with `restart`.
std::vector<launch::HostSlots> parsed_hosts(const std::string& hosts);
std::vector<std::string> parsed_mpi_args(const std::string& mpi_args);

}  // namespace yadokari::cli
