#pragma once
// A command run for its output with a time limit: Slurm's scontrol (launch/scontrol.hpp) retries for up
// to a minute when its controller or configuration is missing, and neither `yadokari status` nor
// `yadokari run` in an allocation may hang on it.
#include <chrono>
#include <string>
#include <vector>

namespace yadokari::launch {

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

}  // namespace yadokari::launch
