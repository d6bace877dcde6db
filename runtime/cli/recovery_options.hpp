#pragma once
// The options of the automatic restart loop (`yadokari run/restart --sim`) and of the job's control
// plane (--port): each flag, else its
// YADOKARI_* variable, else the default. Pure: the environment is passed in as a lookup.
#include <chrono>
#include <string>

#include "runtime/cli/option_source.hpp"
#include "runtime/frontend/recovery_settings.hpp"

namespace yadokari::cli {

// As typed on the command line; empty = not given.
struct RecoveryFlags {
  std::string policy;             // --policy            YADOKARI_POLICY (default balanced)
  std::string max_restarts;       // --max-restarts      YADOKARI_MAX_RESTARTS (default 3)
  std::string max_oversubscribe;  // --max-oversubscribe YADOKARI_MAX_OVERSUBSCRIBE (default 2)
  std::string port{};             // --port              YADOKARI_PORT (default: any free port)
  std::string
      bind_address{};       // --bind-address      YADOKARI_BIND_ADDRESS (default: see frontend/platform.hpp, bind_host)
  bool live_moves = false;  // --live-moves        YADOKARI_LIVE_MOVES=on|off (default off)
};

using frontend::RecoverySettings;

// Throws CliError(usage) for a value that does not parse.
RecoverySettings resolve_recovery_settings(const RecoveryFlags& flags, const EnvLookup& env);

}  // namespace yadokari::cli
