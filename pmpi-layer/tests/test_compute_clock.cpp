#include "pmpi-layer/src/core/compute_clock.hpp"

#include <catch2/catch.hpp>

namespace {
constexpr std::int64_t kMs = 1000000;  // nanoseconds
}

TEST_CASE("the compute clock counts spans seen outside MPI at both ends", "[compute]") {
  yadokari::shim::ComputeClock clock;
  CHECK(clock.seconds() == 0.0);
  clock.observe(0, true);  // starts the clock only
  CHECK(clock.seconds() == 0.0);
  clock.observe(10 * kMs, true);
  clock.observe(20 * kMs, true);
  CHECK(clock.seconds() == Approx(0.020));
}

TEST_CASE("spans inside MPI do not count, a span crossing a call boundary counts half", "[compute]") {
  yadokari::shim::ComputeClock clock;
  clock.observe(0, true);
  clock.observe(10 * kMs, false);  // entered MPI somewhere in the first 10 ms: 5 ms
  clock.observe(20 * kMs, false);  // inside all along: 0
  clock.observe(30 * kMs, true);   // left MPI somewhere in there: 5 ms
  CHECK(clock.seconds() == Approx(0.010));
}

TEST_CASE("a late look adds the whole span it covers", "[compute]") {
  // A sampler woken 85 ms late (a throttled node) still counts wall time, not looks.
  yadokari::shim::ComputeClock clock;
  clock.observe(0, true);
  clock.observe(95 * kMs, true);
  clock.observe(105 * kMs, true);
  CHECK(clock.seconds() == Approx(0.105));
}

TEST_CASE("a rank that is always in MPI computes nothing", "[compute]") {
  yadokari::shim::ComputeClock clock;
  for (std::int64_t t = 0; t <= 1000 * kMs; t += 10 * kMs) clock.observe(t, false);
  CHECK(clock.seconds() == 0.0);
}

TEST_CASE("the sampled estimate follows the share of time outside MPI", "[compute]") {
  // Looks every 10 ms at a rank computing 7 ms out of every 23 ms (periods unrelated, as an
  // application's are to the sampler's): ~30 % of 10 s.
  yadokari::shim::ComputeClock clock;
  const std::int64_t period = 23 * kMs, computing = 7 * kMs;
  for (std::int64_t t = 0; t <= 10000 * kMs; t += 10 * kMs) clock.observe(t, (t % period) < computing);
  CHECK(clock.seconds() == Approx(10.0 * 7 / 23).epsilon(0.05));
}

TEST_CASE("a clock going backwards adds nothing", "[compute]") {
  yadokari::shim::ComputeClock clock;
  clock.observe(50 * kMs, true);
  clock.observe(40 * kMs, true);
  CHECK(clock.seconds() == 0.0);
  clock.observe(60 * kMs, true);
  CHECK(clock.seconds() == Approx(0.020));
}
