#include <catch2/catch.hpp>

#include <optional>

#include "runtime/membership/heartbeat_tracker.hpp"

using namespace yadokari::membership;
using namespace std::chrono_literals;

namespace {

const Clock::time_point t0{};

std::string events_text(const std::vector<NodeEvent>& events) {
  std::string text;
  for (const auto& e : events) text += e.node + ":" + state_name(e.state) + " ";
  return text;
}

// Silence is judged against the other nodes (heartbeat_tracker.hpp): most cases below have a
// witness, a node that keeps speaking, so that the node under test is the only silent one.
void witness_speaks(HeartbeatTracker& tracker, Clock::time_point now) { tracker.heard("witness", now); }

}  // namespace

TEST_CASE("heartbeats keep a node alive, silence makes it suspect, then lost") {
  HeartbeatTracker tracker({200ms, 3});
  tracker.joined("n1", t0);
  tracker.joined("n2", t0);
  for (auto t = 100ms; t <= 1000ms; t += 100ms) {
    tracker.heard("n1", t0 + t);
    const auto events = tracker.advance(t0 + t);
    if (t < 300ms) CHECK(events.empty());
    if (t == 300ms) CHECK(events_text(events) == "n2:suspect ");
    if (t > 300ms && t < 600ms) CHECK(events.empty());
    if (t == 600ms) {
      CHECK(events_text(events) == "n2:lost ");
      CHECK(events.front().silence == 600ms);
    }
    if (t > 600ms) CHECK(events.empty());
  }
  CHECK(tracker.state("n1") == NodeState::alive);
  CHECK(tracker.state("n2") == NodeState::lost);
  CHECK(tracker.state("n3") == std::nullopt);
  CHECK(tracker.nodes() == std::vector<std::string>{"n1", "n2"});
}

TEST_CASE("a suspect node that speaks again is reported alive once") {
  HeartbeatTracker tracker({200ms, 3});
  tracker.joined("n1", t0);
  tracker.joined("witness", t0);
  witness_speaks(tracker, t0 + 350ms);
  CHECK(events_text(tracker.advance(t0 + 350ms)) == "n1:suspect ");
  tracker.heard("n1", t0 + 400ms);
  CHECK(events_text(tracker.advance(t0 + 410ms)) == "n1:alive ");
  CHECK(tracker.advance(t0 + 420ms).empty());
}

TEST_CASE("a lost node stays lost: late heartbeats and a second hello are ignored") {
  HeartbeatTracker tracker({100ms, 2});
  tracker.joined("n1", t0);
  tracker.joined("witness", t0);
  witness_speaks(tracker, t0 + 200ms);
  CHECK(events_text(tracker.advance(t0 + 200ms)) == "n1:lost ");
  tracker.heard("n1", t0 + 250ms);
  tracker.joined("n1", t0 + 260ms);
  CHECK(tracker.advance(t0 + 270ms).empty());
  CHECK(tracker.state("n1") == NodeState::lost);
  CHECK(tracker.last_heard("n1") == t0);
}

TEST_CASE("one allowed miss still needs a late interval before the loss") {
  // misses = 1: lost after one interval would fire on ordinary jitter; the half-interval grace
  // applies to the loss verdict too.
  HeartbeatTracker tracker({200ms, 1});
  tracker.joined("n1", t0);
  tracker.joined("witness", t0);
  witness_speaks(tracker, t0 + 250ms);
  CHECK(tracker.advance(t0 + 250ms).empty());
  witness_speaks(tracker, t0 + 300ms);
  CHECK(events_text(tracker.advance(t0 + 300ms)) == "n1:lost ");
}

TEST_CASE("heartbeats from a node that never said hello are ignored") {
  HeartbeatTracker tracker({200ms, 3});
  tracker.heard("stranger", t0);
  CHECK(tracker.nodes().empty());
  CHECK(tracker.advance(t0 + 10s).empty());
}

TEST_CASE("a stall of the observer itself is not held against the nodes") {
  HeartbeatTracker tracker({200ms, 3});
  tracker.joined("n1", t0);
  tracker.joined("witness", t0);
  witness_speaks(tracker, t0 + 100ms);
  CHECK(tracker.advance(t0 + 100ms).empty());
  // The front end did not run for 900 ms: the heartbeats n1 sent meanwhile are not read yet.
  witness_speaks(tracker, t0 + 1000ms);
  CHECK(tracker.advance(t0 + 1000ms).empty());
  CHECK(tracker.state("n1") == NodeState::alive);
  // Silence after the observer runs again still counts, from where the stall ended.
  const auto at = [&](std::chrono::milliseconds t) {
    witness_speaks(tracker, t0 + t);
    return events_text(tracker.advance(t0 + t));
  };
  CHECK(at(1100ms).empty());
  CHECK(at(1200ms) == "n1:suspect ");
  CHECK(at(1400ms).empty());
  CHECK(at(1500ms) == "n1:lost ");
}

// Seen under load (two CPU hogs and six polling ranks on 2 cores): every node's heartbeats arrived
// 1.3 s apart at once while each agent had sent them on time; the front end's ZeroMQ thread had
// waited for a CPU, with its loop still running.
TEST_CASE("a silence every node shares is forgiven for one loss period, then counts") {
  HeartbeatTracker tracker({200ms, 6});
  tracker.joined("n1", t0);
  tracker.joined("n2", t0);
  std::string seen;
  auto run_until = [&](std::chrono::milliseconds from, std::chrono::milliseconds to, bool speak) {
    for (auto t = from; t <= to; t += 50ms) {
      if (speak && t % 200ms == 0ms) {
        tracker.heard("n1", t0 + t);
        tracker.heard("n2", t0 + t);
      }
      seen += events_text(tracker.advance(t0 + t));
    }
  };
  run_until(50ms, 1000ms, true);
  // Nothing from anyone for 1.2 s, the observer's loop turning all along: not even suspect.
  run_until(1050ms, 2150ms, false);
  run_until(2200ms, 3000ms, true);
  CHECK(seen.empty());
  // Every node silent for good (the front end cut off, or all nodes gone): lost one loss period
  // after a single node would be, 2.4 s after the last heartbeat.
  std::optional<std::chrono::milliseconds> lost_at;
  for (auto t = 3050ms; t <= 6000ms && !lost_at; t += 50ms) {
    const auto events = tracker.advance(t0 + t);
    if (events_text(events) == "n1:lost n2:lost ") {
      lost_at = t;
      CHECK(events.front().silence == t - 3000ms);  // reported as it was
    }
  }
  CHECK(lost_at == 5400ms);
}

TEST_CASE("the default policy tolerates a second of silence and still detects within 1.5 s") {
  HeartbeatTracker tracker(HeartbeatPolicy{});
  tracker.joined("n1", t0);
  tracker.joined("witness", t0);
  for (auto t = 50ms; t <= 1150ms; t += 50ms) {
    witness_speaks(tracker, t0 + t);
    CHECK(events_text(tracker.advance(t0 + t)).find("lost") == std::string::npos);
  }
  bool lost = false;
  for (auto t = 1200ms; t <= 1500ms && !lost; t += 50ms) {
    witness_speaks(tracker, t0 + t);
    lost = tracker.advance(t0 + t).size() == 1 && tracker.state("n1") == NodeState::lost;
  }
  CHECK(lost);
}

TEST_CASE("a node whose agent reported late beats gets a bounded grace for a while") {
  HeartbeatPolicy policy{200ms, 3};
  policy.max_late_grace = 400ms;
  policy.late_memory = 5s;
  HeartbeatTracker tracker(policy);
  tracker.joined("n1", t0);
  tracker.joined("n2", t0);
  tracker.joined("witness", t0);
  tracker.heard("n1", t0 + 100ms, 150ms);  // twice 150 ms of grace
  tracker.heard("n2", t0 + 100ms, 2s);     // capped at 400 ms
  CHECK(tracker.late_grace("n1", t0 + 100ms) == 300ms);
  CHECK(tracker.late_grace("n2", t0 + 100ms) == 400ms);
  // Silent from 100 ms on: lost at 600 ms + grace, not at 600 ms.
  for (auto t = 110ms; t <= 1200ms; t += 10ms) {
    witness_speaks(tracker, t0 + t);
    const auto events = tracker.advance(t0 + t);
    for (const auto& event : events) {
      if (event.state != NodeState::lost) continue;
      if (event.node == "n1") CHECK(t == 1000ms);
      if (event.node == "n2") CHECK(t == 1100ms);
    }
  }
  CHECK(tracker.state("n1") == NodeState::lost);
  CHECK(tracker.state("n2") == NodeState::lost);
}

TEST_CASE("the grace for late beats is forgotten after late_memory") {
  HeartbeatPolicy policy{200ms, 3};
  policy.late_memory = 1s;
  HeartbeatTracker tracker(policy);
  tracker.joined("n1", t0);
  tracker.joined("witness", t0);
  tracker.heard("n1", t0 + 100ms, 100ms);
  for (auto t = 200ms; t <= 1200ms; t += 100ms) {
    tracker.heard("n1", t0 + t);  // on time from here
    witness_speaks(tracker, t0 + t);
    CHECK(events_text(tracker.advance(t0 + t)).empty());
  }
  CHECK(tracker.late_grace("n1", t0 + 1200ms) == 0ms);
  // Silent from 1200 ms on: lost after interval x misses alone.
  std::optional<Clock::duration> lost_at;
  for (auto t = 1210ms; t <= 2000ms && !lost_at; t += 10ms) {
    witness_speaks(tracker, t0 + t);
    for (const auto& event : tracker.advance(t0 + t))
      if (event.state == NodeState::lost) lost_at = t;
  }
  CHECK(lost_at == 1800ms);
}

// After a launcher's failure the front end plans nothing until membership has settled
// (frontend/job_supervision.hpp, settle_membership): the decision is the tracker's.
TEST_CASE("after a failure a node is settled once heard from again or lost, never before") {
  HeartbeatTracker tracker({200ms, 6});
  tracker.joined("n1", t0);
  tracker.joined("n2", t0);
  tracker.joined("n3", t0);
  for (auto t = 200ms; t <= 1000ms; t += 200ms) {
    for (const char* node : {"n1", "n2", "n3"}) tracker.heard(node, t0 + t);
    CHECK(tracker.advance(t0 + t).empty());
  }
  // n2 is killed at 1.1 s, the launcher fails at 1.15 s: that is the mark. One heartbeat n2 sent
  // before it died arrives after the mark, and must not make it count as alive.
  const BeatCounts mark = tracker.beat_counts();
  CHECK(mark.at("n2") == 6);  // the hello and five heartbeats
  CHECK(tracker.unsettled_since(mark, 2) == std::vector<std::string>{"n1", "n2", "n3"});
  tracker.heard("n2", t0 + 1160ms);
  tracker.heard("n1", t0 + 1200ms);
  tracker.heard("n3", t0 + 1200ms);
  CHECK(tracker.advance(t0 + 1200ms).empty());
  CHECK(tracker.unsettled_since(mark, 2) == std::vector<std::string>{"n1", "n2", "n3"});
  tracker.heard("n1", t0 + 1400ms);
  tracker.heard("n3", t0 + 1400ms);
  CHECK(tracker.advance(t0 + 1400ms).empty());
  // n1 and n3 spoke twice since: settled. n2 is still alive for the tracker (silent for less than
  // the loss period) but not settled: no restart may be planned onto it yet.
  CHECK(tracker.state("n2") == NodeState::alive);
  CHECK(tracker.unsettled_since(mark, 2) == std::vector<std::string>{"n2"});
  std::vector<NodeEvent> events;
  for (auto t = 1600ms; events.empty() || events.back().state != NodeState::lost; t += 200ms) {
    tracker.heard("n1", t0 + t);
    tracker.heard("n3", t0 + t);
    for (auto& event : tracker.advance(t0 + t)) events.push_back(event);
    REQUIRE(t <= 2400ms);  // lost after 6 x 200 ms of silence since 1.16 s
  }
  CHECK(events_text(events) == "n2:suspect n2:lost ");
  CHECK(tracker.unsettled_since(mark, 2).empty());
  // A node that joins after the mark counts from its hello.
  tracker.joined("n4", t0 + 2400ms);
  CHECK(tracker.unsettled_since(mark, 2) == std::vector<std::string>{"n4"});
  tracker.heard("n4", t0 + 2600ms);
  CHECK(tracker.unsettled_since(mark, 2).empty());
}
