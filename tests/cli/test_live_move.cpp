// When a move can be live, and what the next launch is told (runtime/frontend/live_move.hpp).
#include <catch2/catch.hpp>

#include "runtime/frontend/live_move.hpp"

using yadokari::frontend::kept_rank_list;
using yadokari::frontend::KeptRanks;
using yadokari::frontend::why_not_live;

TEST_CASE("a move is live only where the front end can keep the ranks' processes", "[live]") {
  CHECK(why_not_live(true, false, false).empty());
  CHECK(why_not_live(false, false, false) == "the front end cannot see the ranks' processes on these hosts");
  CHECK(why_not_live(true, true, false) == "the images are node-local (--node-dir)");
  CHECK(why_not_live(true, false, true) == "Slurm ends every process of a job step with the step");
}

TEST_CASE("the next launch is told the kept ranks in order", "[live]") {
  KeptRanks kept;
  kept.processes = {{4, 400}, {0, 100}, {1, 101}};
  CHECK(kept_rank_list(kept) == "0,1,4");
  CHECK(kept_rank_list(KeptRanks{}).empty());
}
