#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "pmpi-layer/src/core/log_compaction.hpp"

namespace yadokari::shim {
namespace {

const std::vector<std::uint64_t> kNone;

std::vector<bool> needed_with(const std::vector<LoggedObject>& log, const std::set<std::uint64_t>& held) {
  return entries_needed(log, [&](std::size_t i) { return held.count(log[i].made) > 0; });
}

}  // namespace

TEST_CASE("a freed local object nothing kept was made from is dropped", "[log-compaction]") {
  const std::vector<std::uint64_t> from_t{40};
  // 0: type 40, freed; 1: type 41 from 40, held; 2: type 42, freed; 3: group 43, freed.
  const std::vector<LoggedObject> log{
      {40, &kNone, false}, {41, &from_t, false}, {42, &kNone, false}, {43, &kNone, false}};
  CHECK(needed_with(log, {41}) == std::vector<bool>{true, true, false, false});
}

TEST_CASE("collective makings stay, and so does everything they were made from", "[log-compaction]") {
  const std::vector<std::uint64_t> from_world_and_group{1, 51};
  const std::vector<std::uint64_t> from_group{50};
  // 0: group 50 (freed), 1: group 51 from 50 (freed), 2: a communicator over 51 that this rank
  // freed (or that gave it MPI_COMM_NULL: made 0): its peers may still hold theirs.
  for (const std::uint64_t made : {52ull, 0ull}) {
    const std::vector<LoggedObject> log{
        {50, &kNone, false}, {51, &from_group, false}, {made, &from_world_and_group, true}};
    CHECK(needed_with(log, {}) == std::vector<bool>{true, true, true});
  }
}

TEST_CASE("a handle made again: only the making a kept entry used stays", "[log-compaction]") {
  const std::vector<std::uint64_t> from_60{60};
  // 60 made, 61 from it (held), 60 freed and made again (freed), made a third time (held).
  const std::vector<LoggedObject> log{
      {60, &kNone, false}, {61, &from_60, false}, {60, &kNone, false}, {60, &kNone, false}};
  CHECK(needed_with(log, {60, 61}) == std::vector<bool>{true, true, false, true});
}

TEST_CASE("a churn of made and freed objects leaves only what is held", "[log-compaction]") {
  std::vector<LoggedObject> log;
  for (int step = 0; step < 10000; ++step) log.push_back({70, &kNone, false});  // made and freed per step
  log.push_back({71, &kNone, false});
  const std::vector<bool> needed = needed_with(log, {71});
  CHECK(std::count(needed.begin(), needed.end(), true) == 1);
  CHECK(needed.back());
}

}  // namespace yadokari::shim
