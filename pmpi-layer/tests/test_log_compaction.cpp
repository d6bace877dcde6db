#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "pmpi-layer/src/core/log_compaction.hpp"

namespace yadokari::shim {
namespace {

const std::vector<std::uint64_t> kNone;

// `collective`: the entries whose making was collective.
std::vector<bool> needed_with(const std::vector<LoggedMaking>& log, const std::set<std::uint64_t>& held,
                              const std::set<std::size_t>& collective = {}) {
  return entries_needed(
      log, [&](std::size_t i) { return collective.count(i) > 0; },
      [&](std::size_t i) { return held.count(log[i].made) > 0; });
}

}  // namespace

TEST_CASE("a freed local object nothing kept was made from is dropped", "[log-compaction]") {
  const std::vector<std::uint64_t> from_t{40};
  // 0: type 40, freed; 1: type 41 from 40, held; 2: type 42, freed; 3: group 43, freed.
  const std::vector<LoggedMaking> log{{40, &kNone}, {41, &from_t}, {42, &kNone}, {43, &kNone}};
  CHECK(needed_with(log, {41}) == std::vector<bool>{true, true, false, false});
}

TEST_CASE("collective makings stay, and so does everything they were made from", "[log-compaction]") {
  const std::vector<std::uint64_t> from_world_and_group{1, 51};
  const std::vector<std::uint64_t> from_group{50};
  // 0: group 50 (freed), 1: group 51 from 50 (freed), 2: a communicator over 51 that this rank
  // freed (or that gave it MPI_COMM_NULL: made 0): its peers may still hold theirs.
  for (const std::uint64_t made : {52ull, 0ull}) {
    const std::vector<LoggedMaking> log{{50, &kNone}, {51, &from_group}, {made, &from_world_and_group}};
    CHECK(needed_with(log, {}, {2}) == std::vector<bool>{true, true, true});
  }
}

TEST_CASE("a handle made again: only the making a kept entry used stays", "[log-compaction]") {
  const std::vector<std::uint64_t> from_60{60};
  // 60 made, 61 from it (held), 60 freed and made again (freed), made a third time (held).
  const std::vector<LoggedMaking> log{{60, &kNone}, {61, &from_60}, {60, &kNone}, {60, &kNone}};
  CHECK(needed_with(log, {60, 61}) == std::vector<bool>{true, true, false, true});
}

TEST_CASE("a churn of made and freed objects leaves only what is held", "[log-compaction]") {
  std::vector<LoggedMaking> log;
  for (int step = 0; step < 10000; ++step) log.push_back({70, &kNone});  // made and freed per step
  log.push_back({71, &kNone});
  const std::vector<bool> needed = needed_with(log, {71});
  CHECK(std::count(needed.begin(), needed.end(), true) == 1);
  CHECK(needed.back());
}

}  // namespace yadokari::shim
