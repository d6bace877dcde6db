#pragma once
// A command run for its output with a time limit: `yadokari status` asks Slurm (slurm_view.hpp) and
// must answer even when Slurm's controller does not (scontrol retries for many seconds).
#include <chrono>
#include <string>
#include <vector>

namespace yadokari::cli {

struct CommandResult {
  bool started = false;    // false: the program could not be executed (not installed)
  bool timed_out = false;  // killed (SIGKILL) when the limit passed
  int exit_code = -1;      // when it exited by itself; -1 otherwise
  std::string out;
  std::string err;
};

// Runs argv (found in PATH, no shell) with stdin from /dev/null and collects stdout and stderr,
// killing it once `limit` has passed.
CommandResult run_bounded(const std::vector<std::string>& argv, std::chrono::milliseconds limit);

}  // namespace yadokari::cli
