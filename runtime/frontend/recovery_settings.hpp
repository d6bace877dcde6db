#pragma once
// The automatic restart loop's choices and the job's control plane (resolved from flags and
// YADOKARI_* variables by cli/recovery_options.hpp).
#include <string>

#include "runtime/membership/heartbeat_tracker.hpp"
#include "scheduler/placement.hpp"

namespace yadokari::frontend {

struct RecoverySettings {
  scheduler::Policy policy = scheduler::Policy::balanced;
  int max_restarts = 3;
  double max_oversubscribe = 2.0;         // ranks per slot a restart may put on a node
  membership::HeartbeatPolicy heartbeat;  // YADOKARI_HEARTBEAT_MS (200), YADOKARI_HEARTBEAT_MISSES (6)
  // The coordinator's control port (ranks and node agents connect to it); 0: any free port.
  int control_port = 0;
  std::string bind_address;  // empty: chosen by the platform (Platform::bind_host)
  // Moves of some ranks (`migrate`, a draining node) are live where the job can move live
  // (live_move.hpp, why_not_live): the ranks that stay keep their processes.
  bool live_moves = false;
};

}  // namespace yadokari::frontend
