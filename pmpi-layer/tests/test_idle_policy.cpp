#include "pmpi-layer/src/core/idle_policy.hpp"

#include <catch2/catch.hpp>

using yadokari::shim::idle_policy;
using yadokari::shim::local_ranks_from;

TEST_CASE("idle policy: a node with more ranks than CPUs yields on every idle poll") {
  const auto p = idle_policy(4, 2);
  CHECK(p.oversubscribed);
  CHECK(p.polls_before_yield == 0);
  CHECK(p.local_ranks == 4);
  CHECK(p.cpus == 2);
}

TEST_CASE("idle policy: one rank per CPU or fewer spins first") {
  CHECK_FALSE(idle_policy(2, 2).oversubscribed);
  CHECK(idle_policy(2, 2).polls_before_yield == yadokari::shim::kPollsBeforeYield);
  CHECK_FALSE(idle_policy(1, 64).oversubscribed);
}

TEST_CASE("idle policy: unknown counts are never oversubscription") {
  CHECK_FALSE(idle_policy(0, 2).oversubscribed);
  CHECK_FALSE(idle_policy(8, 0).oversubscribed);
  CHECK_FALSE(idle_policy(8, -1).oversubscribed);
}

TEST_CASE("local ranks: Open MPI's variable first, then Hydra's, whole positive numbers only") {
  CHECK(local_ranks_from("4", "") == 4);
  CHECK(local_ranks_from("", "3") == 3);
  CHECK(local_ranks_from("2", "5") == 2);
  CHECK(local_ranks_from("", "") == 0);
  CHECK(local_ranks_from("0", "") == 0);
  CHECK(local_ranks_from("-2", "") == 0);
  CHECK(local_ranks_from("4x", "") == 0);
  CHECK(local_ranks_from("x", "6") == 6);
}

TEST_CASE("idle policy: where the library's progress yields when idle, the shim only spins") {
  const auto own = yadokari::shim::with_library_yield(idle_policy(4, 2), true);
  CHECK(own.library_yields);
  CHECK(own.oversubscribed);  // still said in the restart log
  CHECK_FALSE(yadokari::shim::with_library_yield(idle_policy(4, 2), false).library_yields);
  CHECK_FALSE(idle_policy(4, 2).library_yields);
}
