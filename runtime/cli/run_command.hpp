#pragma once
// `yadokari run`: launch an MPI program with the shim preloaded and the control plane up.
#include <string>
#include <vector>

namespace yadokari::cli {

struct RunOptions {
  int ranks = 0;
  std::string mpi = "auto";          // openmpi | mpich | auto
  std::string hosts;                 // h1:slots,h2:slots
  std::string mpi_args;              // extra launcher arguments, shell-quoted
  std::vector<std::string> command;  // APP ARGS...
};

// Returns the application's exit code (128+N if the launcher was killed by signal N).
// Throws CliError for anything that stops the job from starting.
int run_job(const RunOptions& options);

}  // namespace yadokari::cli
