#pragma once
// Asking Slurm with `scontrol`, bounded: `yadokari run` in an allocation expands the node list with
// it and `yadokari status` shows the job's Slurm state. scontrol does not fail when the file named
// by SLURM_CONF is missing: it retries for a minute ("retrying in 1sec up to 60sec"). So that file
// is checked first, and every query is ended at a time limit; either way the reason is one line.
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace yadokari::launch {

class ScontrolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "" when SLURM_CONF is unset or names a readable file; else why not, in one line:
// "SLURM_CONF=/x/slurm.conf cannot be read: No such file or directory".
std::string slurm_conf_problem();

// The standard output of `scontrol ARGS...` (found in PATH, stdin from /dev/null) if it exits 0
// within `limit`; otherwise ScontrolError with one line: the SLURM_CONF problem, "scontrol is not
// installed or not in PATH", "scontrol ARGS did not answer within N s[: its first complaint]" or
// "scontrol ARGS failed[: its first complaint]".
std::string run_scontrol(const std::vector<std::string>& args, std::chrono::milliseconds limit);

}  // namespace yadokari::launch
