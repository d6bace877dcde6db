// The restart's timeline line (runtime/frontend/restart_timeline.hpp): every phase in order, "-" for
// one not reached or without meaning.
#include <catch2/catch.hpp>

#include "runtime/frontend/restart_timeline.hpp"

using yadokari::frontend::RestartTimeline;
using yadokari::frontend::timeline_line;

TEST_CASE("a node loss's timeline shows how long membership took to settle, after detection") {
  RestartTimeline t;
  t.number = 1;
  t.cause = "node n2 lost";
  t.epoch = 3;
  t.placement = "policy balanced, ranks moved: 2,3";
  t.detect_s = 1.2;
  t.settle_s = 0.25;
  t.stop_s = 0.1;
  t.plan_s = 0.02;
  CHECK(timeline_line(t) ==
        "restart 1 (node n2 lost): detect 1.200 s, settle 0.250 s, stop 0.100 s, plan 0.020 s, stage 0.000 s, "
        "launch -, MPI_Init -, restore -; epoch 3; policy balanced, ranks moved: 2,3");
}

TEST_CASE("a rebalance has neither a detection nor a settling") {
  RestartTimeline t;
  t.number = 2;
  t.cause = "rebalance";
  t.epoch = 5;
  t.placement = "policy speed, ranks moved: 3";
  t.launch_s = 0.5;
  t.init_s = 0.3;
  t.restore_s = 0.01;
  CHECK(timeline_line(t) ==
        "restart 2 (rebalance): detect -, settle -, stop 0.000 s, plan 0.000 s, stage 0.000 s, launch 0.500 s, "
        "MPI_Init 0.300 s, restore 0.010 s; epoch 5; policy speed, ranks moved: 3");
  // Its checkpoint, from the request to the commit, once measured.
  t.checkpoint_s = 0.4125;
  CHECK(timeline_line(t) ==
        "restart 2 (rebalance): detect -, settle -, checkpoint 0.412 s, stop 0.000 s, plan 0.000 s, stage 0.000 s, "
        "launch 0.500 s, MPI_Init 0.300 s, restore 0.010 s; epoch 5; policy speed, ranks moved: 3");
}
