// Checkpoint options: flags over YADOKARI_* variables over defaults.
#include <catch2/catch.hpp>
#include <map>

#include "runtime/cli/checkpoint_options.hpp"
#include "runtime/cli/cli_error.hpp"
#include "tests/cli/fake_env.hpp"

using namespace yadokari::cli;

TEST_CASE("checkpointing is off by default", "[checkpoint-options]") {
  const auto settings = resolve_checkpoint_settings({}, fake_env({}));
  CHECK_FALSE(settings.dir);
  CHECK(settings.interval_seconds == 0.0);
  CHECK_FALSE(settings.stop_after_epoch);
  CHECK(settings.keep == 2);
  CHECK(settings.compression == 0);
}

TEST_CASE("the variables apply when no flag is given, flags win", "[checkpoint-options]") {
  const auto env = fake_env({{"YADOKARI_CKPT_DIR", "/env/ckpt"},
                             {"YADOKARI_CKPT_INTERVAL", "2.5"},
                             {"YADOKARI_STOP_AFTER_EPOCH", "3"},
                             {"YADOKARI_KEEP", "4"},
                             {"YADOKARI_CKPT_COMPRESS", "5"}});
  const auto from_env = resolve_checkpoint_settings({}, env);
  CHECK(*from_env.dir == "/env/ckpt");
  CHECK(from_env.interval_seconds == 2.5);
  CHECK(*from_env.stop_after_epoch == 3);
  CHECK(from_env.keep == 4);
  CHECK(from_env.compression == 5);

  const auto from_flags = resolve_checkpoint_settings({"/flag/ckpt", "0.25", "7", "1", "0"}, env);
  CHECK(*from_flags.dir == "/flag/ckpt");
  CHECK(from_flags.interval_seconds == 0.25);
  CHECK(*from_flags.stop_after_epoch == 7);
  CHECK(from_flags.keep == 1);
  CHECK(from_flags.compression == 0);
}

TEST_CASE("interval flags need a checkpoint directory, stray variables do not", "[checkpoint-options]") {
  CheckpointFlags flags;
  flags.interval = "5";
  CHECK_THROWS_WITH(resolve_checkpoint_settings(flags, fake_env({})), "--interval needs --ckpt-dir");
  CHECK_NOTHROW(resolve_checkpoint_settings(flags, fake_env({{"YADOKARI_CKPT_DIR", "/d"}})));
  CHECK_NOTHROW(resolve_checkpoint_settings({}, fake_env({{"YADOKARI_CKPT_INTERVAL", "5"}})));
}

TEST_CASE("bad values name their source", "[checkpoint-options]") {
  CHECK_THROWS_WITH(resolve_checkpoint_settings({}, fake_env({{"YADOKARI_CKPT_INTERVAL", "-1"}})),
                    "YADOKARI_CKPT_INTERVAL must be a number of seconds (0 or more), not '-1'");
  CheckpointFlags flags;
  flags.ckpt_dir = "/d";
  flags.stop_after_epoch = "0";
  CHECK_THROWS_WITH(resolve_checkpoint_settings(flags, fake_env({})),
                    "--stop-after-epoch must be an epoch number (1 or more), not '0'");
}

TEST_CASE("the node directory (--node-dir) is absolute and needs a checkpoint directory", "[checkpoint-options]") {
  CHECK(resolve_checkpoint_settings({}, fake_env({})).node_dir.empty());
  CheckpointFlags flags;
  flags.ckpt_dir = "/d";
  flags.node_dir = "/run/yadokari/node-disk/";
  CHECK(resolve_checkpoint_settings(flags, fake_env({})).node_dir == "/run/yadokari/node-disk/");
  CHECK(resolve_checkpoint_settings({}, fake_env({{"YADOKARI_CKPT_DIR", "/d"}, {"YADOKARI_NODE_DIR", "/local"}}))
            .node_dir == "/local");
  flags.node_dir = "scratch";
  CHECK_THROWS_WITH(resolve_checkpoint_settings(flags, fake_env({})),
                    "--node-dir must be an absolute path (the same on every node), not 'scratch'");
  CHECK_THROWS_WITH(
      resolve_checkpoint_settings({}, fake_env({{"YADOKARI_CKPT_DIR", "/d"}, {"YADOKARI_NODE_DIR", "x"}})),
      "YADOKARI_NODE_DIR must be an absolute path (the same on every node), not 'x'");
  flags.ckpt_dir.clear();
  flags.node_dir = "/local";
  CHECK_THROWS_WITH(resolve_checkpoint_settings(flags, fake_env({})),
                    "--node-dir needs --ckpt-dir (the MANIFESTs stay there)");
}

TEST_CASE("a --ckpt-dir given empty or named like an option is refused, not taken as off", "[checkpoint-options]") {
  CheckpointFlags empty;
  empty.ckpt_dir_given = true;  // --ckpt-dir "$UNSET_VARIABLE"
  CHECK_THROWS_WITH(resolve_checkpoint_settings(empty, fake_env({})), "--ckpt-dir needs a directory, not ''");
  CheckpointFlags dashes;
  dashes.ckpt_dir = "--";  // what CLI11 makes of "--ckpt-dir= -- app"
  dashes.ckpt_dir_given = true;
  CHECK_THROWS_WITH(resolve_checkpoint_settings(dashes, fake_env({})),
                    "--ckpt-dir needs a directory, not '--' (write ./-- for a name that starts with '-')");
  // An empty variable is an unset one, as usual for the environment.
  CHECK_FALSE(resolve_checkpoint_settings({}, fake_env({{"YADOKARI_CKPT_DIR", ""}})).dir);
}
