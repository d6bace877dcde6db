// Options of the cluster runtime: flags over YADOKARI_* variables over defaults.
#include <catch2/catch.hpp>
#include <map>

#include "runtime/cli/cli_error.hpp"
#include "tests/cli/fake_env.hpp"
#include "runtime/cli/recovery_options.hpp"

using namespace yadokari::cli;

TEST_CASE("recovery defaults: balanced, 3 restarts, 2 ranks per slot, 200 ms x 3, any port", "[recovery-options]") {
  const auto settings = resolve_recovery_settings({}, fake_env({}));
  CHECK(settings.policy == yadokari::scheduler::Policy::balanced);
  CHECK(settings.max_restarts == 3);
  CHECK(settings.max_oversubscribe == 2.0);
  CHECK(settings.heartbeat.interval == std::chrono::milliseconds(200));
  CHECK(settings.heartbeat.misses == 6);
  CHECK(settings.control_port == 0);
}

TEST_CASE("the control port (--port) is a TCP port, the flag wins over YADOKARI_PORT", "[recovery-options]") {
  RecoveryFlags flags;
  CHECK(resolve_recovery_settings(flags, fake_env({{"YADOKARI_PORT", "5000"}})).control_port == 5000);
  flags.port = "6000";
  CHECK(resolve_recovery_settings(flags, fake_env({{"YADOKARI_PORT", "5000"}})).control_port == 6000);
  for (const char* bad : {"0", "65536", "http", "-1", "80x"}) {
    flags.port = bad;
    CHECK_THROWS_WITH(resolve_recovery_settings(flags, fake_env({})),
                      std::string("--port must be a TCP port number from 1 to 65535, not '") + bad + "'");
  }
  CHECK_THROWS_WITH(resolve_recovery_settings({}, fake_env({{"YADOKARI_PORT", "99999"}})),
                    "YADOKARI_PORT must be a TCP port number from 1 to 65535, not '99999'");
}

TEST_CASE("live moves are off by default, on with --live-moves or YADOKARI_LIVE_MOVES=on", "[recovery-options]") {
  CHECK_FALSE(resolve_recovery_settings({}, fake_env({})).live_moves);
  CHECK(resolve_recovery_settings({}, fake_env({{"YADOKARI_LIVE_MOVES", "on"}})).live_moves);
  CHECK_FALSE(resolve_recovery_settings({}, fake_env({{"YADOKARI_LIVE_MOVES", "off"}})).live_moves);
  RecoveryFlags flags;
  flags.live_moves = true;
  CHECK(resolve_recovery_settings(flags, fake_env({{"YADOKARI_LIVE_MOVES", "off"}})).live_moves);
  CHECK_THROWS_WITH(resolve_recovery_settings({}, fake_env({{"YADOKARI_LIVE_MOVES", "yes"}})),
                    "YADOKARI_LIVE_MOVES must be on or off, not 'yes'");
}
