#pragma once
// Reading scontrol's one-line records (`scontrol show job|node -o`): `yadokari status` shows the
// Slurm state of a job's nodes (runtime/cli/slurm_view.hpp) and the front end watches them for a
// drain (runtime/frontend/slurm_drains.hpp).
#include <string>
#include <string_view>
#include <vector>

namespace yadokari::launch {

struct SlurmNodeState {
  std::string node;
  std::string state;  // as scontrol writes it: ALLOCATED, MIXED, IDLE, DOWN+NOT_RESPONDING, ALLOCATED+DRAIN, ...
  // Why an administrator set its state (the rest of the line after "Reason=", which scontrol writes
  // last: "maintenance [root@2026-12-06T18:40:46]"); "" if none.
  std::string reason;

  bool draining() const { return state.find("DRAIN") != std::string::npos; }
};

// The value of `key` in one line of `scontrol show ... -o` ("Key=value Key=value ..."); "" when
// the line has no such key. Values with blanks (Reason=...) are cut at the first blank.
std::string scontrol_field(std::string_view line, std::string_view key);

// The nodes of `scontrol show node -o LIST`, one per line. ScontrolError (scontrol.hpp) on a line
// without NodeName or State.
std::vector<SlurmNodeState> read_slurm_nodes(std::string_view text);

}  // namespace yadokari::launch
