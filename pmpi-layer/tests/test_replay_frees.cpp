#include <catch2/catch.hpp>

#include <set>

#include "pmpi-layer/src/core/replay_frees.hpp"

namespace yadokari::shim {
namespace {

const std::vector<std::uint64_t> kNone;

}  // namespace

TEST_CASE("an object nothing holds is freed after the last one made from it", "[replay-frees]") {
  const std::vector<std::uint64_t> from_a{10}, from_b{11};
  // 0: a (10), 1: b (11) from a, 2: c (12) from b, 3: d (13) from a; the app holds c and d.
  const std::vector<LoggedMaking> log{{10, &kNone}, {11, &from_a}, {12, &from_b}, {13, &from_a}};
  const std::set<std::uint64_t> held{12, 13};
  const auto frees = replay_frees(log, [&](std::size_t i) { return held.count(log[i].made) > 0; });
  CHECK(frees[0].empty());
  CHECK(frees[1].empty());
  CHECK(frees[2] == std::vector<std::size_t>{1});  // b, once c is made
  CHECK(frees[3] == std::vector<std::size_t>{0});  // a, once d is made
}

TEST_CASE("a handle made again is a new object: only its latest making is held", "[replay-frees]") {
  const std::vector<std::uint64_t> from_x{20};
  // The app duped into 20, freed it, and got 20 back three times; a split (21) was made from the
  // second 20 and is held, as is the last 20.
  const std::vector<LoggedMaking> log{{20, &kNone}, {20, &kNone}, {21, &from_x}, {20, &kNone}};
  const auto frees = replay_frees(log, [&](std::size_t i) { return log[i].made == 20 || log[i].made == 21; });
  CHECK(frees[0] == std::vector<std::size_t>{0});  // never used: at once
  CHECK(frees[1].empty());
  CHECK(frees[2] == std::vector<std::size_t>{1});  // after the split made from it
  CHECK(frees[3].empty());                         // held
}

TEST_CASE("entries that made nothing are neither freed nor counted as makers", "[replay-frees]") {
  const std::vector<std::uint64_t> from_none{0};
  const std::vector<LoggedMaking> log{{0, &kNone}, {30, &from_none}};
  const auto frees = replay_frees(log, [](std::size_t) { return false; });
  CHECK(frees[0].empty());
  CHECK(frees[1] == std::vector<std::size_t>{1});
}

}  // namespace yadokari::shim
