// restart_stalled (runtime/frontend/job_supervision.hpp): when a restart whose ranks stopped coming
// up ends the job, and with which line. The live path cannot be stalled on purpose in a test; the
// decision is a function of the coordinator's counts and the clock, tested here.
#include <catch2/catch.hpp>

#include "runtime/frontend/job_supervision.hpp"

using namespace yadokari;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

frontend::RestartTimeline restart_two() {
  frontend::RestartTimeline timeline;
  timeline.number = 2;
  timeline.cause = "node n2 lost";
  timeline.epoch = 7;
  return timeline;
}

}  // namespace

TEST_CASE("a restart whose ranks keep coming up is not stalled, however long it takes") {
  const Clock::time_point launched{};
  control::IncarnationProgress progress;
  progress.registered = 3;
  progress.last_registered = launched + 170s;
  CHECK_FALSE(frontend::restart_stalled(restart_two(), progress, launched, 4, launched + 340s));
  progress.restored = 1;
  progress.last_restored = launched + 400s;
  CHECK_FALSE(frontend::restart_stalled(restart_two(), progress, launched, 4, launched + 570s));
}

TEST_CASE("a restart with no rank registered or restored for the bound is stalled, with its counts") {
  const Clock::time_point launched{};
  control::IncarnationProgress progress;
  CHECK_FALSE(frontend::restart_stalled(restart_two(), progress, launched, 4, launched + frontend::kRestartStall - 1s));
  const auto none_came =
      frontend::restart_stalled(restart_two(), progress, launched, 4, launched + frontend::kRestartStall);
  REQUIRE(none_came);
  CHECK(*none_came ==
        "restart 2 (node n2 lost) stalled: 0 of 4 ranks registered and 0 restored, none for 180 s; stopping the job "
        "(epoch 7 is left as it is: yadokari restart tries again from it)");

  progress.registered = 4;
  progress.last_registered = launched + 10s;
  progress.restored = 2;
  progress.last_restored = launched + 20s;
  CHECK_FALSE(frontend::restart_stalled(restart_two(), progress, launched, 4, launched + 199s));
  const auto half_restored = frontend::restart_stalled(restart_two(), progress, launched, 4, launched + 200s);
  REQUIRE(half_restored);
  CHECK(half_restored->starts_with("restart 2 (node n2 lost) stalled: 4 of 4 ranks registered and 2 restored"));
}

TEST_CASE("a restart whose every rank restored is never stalled") {
  const Clock::time_point launched{};
  control::IncarnationProgress progress;
  progress.registered = progress.restored = 4;
  progress.last_registered = progress.last_restored = launched + 1s;
  CHECK_FALSE(frontend::restart_stalled(restart_two(), progress, launched, 4, launched + 3600s));
}
