#pragma once
// The options of the automatic restart loop (`yadokari run/restart --sim`): each flag, else its
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
};

struct RecoverySettings {
  scheduler::Policy policy = scheduler::Policy::balanced;
  int max_restarts = 3;
  double max_oversubscribe = 2.0;  // ranks per slot a restart may put on a node
  membership::HeartbeatPolicy heartbeat;  // YADOKARI_HEARTBEAT_MS (200), YADOKARI_HEARTBEAT_MISSES (3)
};

// Throws CliError(usage) for a value that does not parse.
RecoverySettings resolve_recovery_settings(const RecoveryFlags& flags, const EnvLookup& env);

}  // namespace yadokari::cli
