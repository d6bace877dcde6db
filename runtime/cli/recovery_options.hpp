#pragma once
// The options of the automatic restart loop (`yadokari run/restart --sim`) and of the job's control
// plane (--port): each flag, else its
// YADOKARI_* variable, else the default. Pure: the environment is passed in as a lookup.
#include <chrono>
#include <string>

#include "cli/option_source.hpp"
#include "membership/heartbeat_tracker.hpp"
#include "scheduler/placement.hpp"

namespace yadokari::cli {

// As typed on the command line; empty = not given.
struct RecoveryFlags {
  std::string policy;             // --policy            YADOKARI_POLICY (default balanced)
  std::string max_restarts;       // --max-restarts      YADOKARI_MAX_RESTARTS (default 3)
  std::string max_oversubscribe;  // --max-oversubscribe YADOKARI_MAX_OVERSUBSCRIBE (default 2)
  std::string port{};             // --port              YADOKARI_PORT (default: any free port)
  std::string bind_address{};     // --bind-address      YADOKARI_BIND_ADDRESS (default: see host_placement.hpp)
};

struct RecoverySettings {
  scheduler::Policy policy = scheduler::Policy::balanced;
  int max_restarts = 3;
  double max_oversubscribe = 2.0;  // ranks per slot a restart may put on a node
  membership::HeartbeatPolicy heartbeat;  // YADOKARI_HEARTBEAT_MS (200), YADOKARI_HEARTBEAT_MISSES (6)
  // The coordinator's control port (ranks and node agents connect to it); 0: any free port.
  int control_port = 0;
  std::string bind_address;  // empty: chosen by coordinator_address()
};

// Throws CliError(usage) for a value that does not parse.
RecoverySettings resolve_recovery_settings(const RecoveryFlags& flags, const EnvLookup& env);

}  // namespace yadokari::cli
