#include "runtime/cli/recovery_options.hpp"

#include <cmath>
#include <cstdlib>

#include "runtime/cli/cli_error.hpp"
#include "common/parameters.hpp"

namespace yadokari::cli {
namespace {

int whole_at_least(const OptionSource& source, int minimum, const char* what) {
  const auto value = whole_number<int>(source.value);
  if (!value || *value < minimum)
    throw CliError(exit_code::usage, source.name + " must be " + what + " (" + std::to_string(minimum) +
                                         " or more), not '" + source.value + "'");
  return *value;
}

}  // namespace

RecoverySettings resolve_recovery_settings(const RecoveryFlags& flags, const EnvLookup& env) {
  RecoverySettings settings;
  if (auto policy = pick_option(flags.policy, "--policy", yadokari::parameters::kPolicy, env)) {
    try {
      settings.policy = scheduler::parse_policy(policy->value, policy->name);
    } catch (const scheduler::PlacementError& e) {
      throw CliError(exit_code::usage, e.what());
    }
  }
  if (auto restarts = pick_option(flags.max_restarts, "--max-restarts", yadokari::parameters::kMaxRestarts, env))
    settings.max_restarts = whole_at_least(*restarts, 0, "a whole number of restarts");
  if (auto over =
          pick_option(flags.max_oversubscribe, "--max-oversubscribe", yadokari::parameters::kMaxOversubscribe, env)) {
    char* end = nullptr;
    const double ratio = std::strtod(over->value.c_str(), &end);
    if (end != over->value.c_str() + over->value.size() || !std::isfinite(ratio) || ratio < 1)
      throw CliError(exit_code::usage,
                     over->name + " must be a number of ranks per slot (1 or more), not '" + over->value + "'");
    settings.max_oversubscribe = ratio;
  }
  if (auto port = pick_option(flags.port, "--port", yadokari::parameters::kPort, env)) {
    const auto number = whole_number<int>(port->value);
    if (!number || *number < 1 || *number > 65535)
      throw CliError(exit_code::usage,
                     port->name + " must be a TCP port number from 1 to 65535, not '" + port->value + "'");
    settings.control_port = *number;
  }
  if (auto address = pick_option(flags.bind_address, "--bind-address", yadokari::parameters::kBindAddress, env))
    settings.bind_address = address->value;
  if (flags.live_moves) {
    settings.live_moves = true;
  } else if (auto live = pick_option("", "", yadokari::parameters::kLiveMoves, env)) {
    if (live->value != "on" && live->value != "off")
      throw CliError(exit_code::usage, live->name + " must be on or off, not '" + live->value + "'");
    settings.live_moves = live->value == "on";
  }
  if (auto ms = pick_option("", "", yadokari::parameters::kHeartbeatMs, env))
    settings.heartbeat.interval = std::chrono::milliseconds(whole_at_least(*ms, 10, "milliseconds"));
  if (auto misses = pick_option("", "", yadokari::parameters::kHeartbeatMisses, env))
    settings.heartbeat.misses = whole_at_least(*misses, 1, "a whole number of missed heartbeats");
  return settings;
}

}  // namespace yadokari::cli
