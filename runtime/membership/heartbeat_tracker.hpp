#pragma once
// Failure detection from heartbeats: pure logic, the clock is passed in (unit-testable).
//
// A node is `alive` while its agent's heartbeats arrive. One missed interval makes it `suspect`
// (logged, nothing else happens: a busy front end or a GC-like pause on the node looks the same);
// `misses` missed intervals make it `lost`, for good: a lost node's ranks are gone (the restart
// loop stopped them or the node did), so a late heartbeat cannot bring it back into this job.
//
// Silence is judged against the other nodes: while no node at all is heard from, the fault is as
// likely the observer's (the front end or its ZeroMQ thread waiting for a CPU on a loaded host, a
// second at a time) as every node's, so up to one loss period of such common quiet is not held
// against anyone. A node that is silent while the others speak is lost after interval x misses; if
// every node falls silent, they are lost one loss period later than that.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace yadokari::membership {

using Clock = std::chrono::steady_clock;

struct HeartbeatPolicy {
  std::chrono::milliseconds interval{200};  // YADOKARI_HEARTBEAT_MS
  // YADOKARI_HEARTBEAT_MISSES: lost after this many. 6 x 200 ms keeps detection near a second
  // while a node whose agent waits 1 s for a CPU (6 busy ranks on 2 cores) is not lost.
  int misses = 6;
  // A node whose agent reported its own beats late (it waited for a CPU) gets twice that delay on
  // top of interval x misses before it is lost, at most this much, for `late_memory` after the
  // report: a loaded node is not declared lost for a scheduling hiccup, while a real loss is still
  // caught within interval x misses + max_late_grace (1.6 s by default).
  std::chrono::milliseconds max_late_grace{400};
  std::chrono::milliseconds late_memory{10000};
};

enum class NodeState { alive, suspect, lost };
const char* state_name(NodeState state);

// How many times each node was heard from (hellos and heartbeats), at some moment.
using BeatCounts = std::map<std::string, std::uint64_t>;

struct NodeEvent {
  std::string node;
  NodeState state;          // the new state
  Clock::duration silence;  // since the last heartbeat, when the state changed
};

class HeartbeatTracker {
 public:
  explicit HeartbeatTracker(HeartbeatPolicy policy) : policy_(policy) {}

  // The node's agent said hello (counts as a heartbeat). A lost node stays lost.
  void joined(const std::string& node, Clock::time_point now);
  // A heartbeat, sent `sender_late` later than due (the agent's own report), or any other message
  // from the node's agent (an image chunk is as good a sign of life, and a heartbeat queued behind
  // an image's chunks arrives only after them); ignored for unknown or lost nodes. A suspect node
  // becomes alive again.
  void heard(const std::string& node, Clock::time_point now, Clock::duration sender_late = {});
  // State changes since the last call, in node order. When this observer itself did not run for
  // more than an interval (its process descheduled, a long step in its loop), the heartbeats that
  // arrived meanwhile may not have been read yet: that stretch is not held against the nodes.
  std::vector<NodeEvent> advance(Clock::time_point now);

  std::optional<NodeState> state(const std::string& node) const;
  std::optional<Clock::time_point> last_heard(const std::string& node) const;
  std::vector<std::string> nodes() const;  // every node that joined, sorted
  const HeartbeatPolicy& policy() const { return policy_; }
  // How long silence lasts before a node is lost (without a late report).
  Clock::duration loss_after() const { return policy_.interval * policy_.misses; }
  // The extra grace `node` has now for the lateness its agent reported (0 if none, or unknown).
  Clock::duration late_grace(const std::string& node, Clock::time_point now) const;

  // How much of a silence that every node shares is forgiven: one loss period.
  Clock::duration quiet_allowance() const { return loss_after(); }

  // Heartbeats counted so far, per node: a mark to ask `unsettled_since` about later. Counts, not
  // times: advance() moves the last-heard times over the observer's own stalls.
  BeatCounts beat_counts() const;
  // The nodes whose state is not known since `mark`: not lost, and heard from fewer than `beats`
  // times since (a node that died just before the mark may have one heartbeat still on its way).
  // Every node is settled within interval x misses + max_late_grace of the mark (twice the first
  // term when no node speaks any more: quiet_allowance), plus the
  // observer's stalls: it speaks or it is lost. Nodes that joined after the mark count from 0.
  std::vector<std::string> unsettled_since(const BeatCounts& mark, std::uint64_t beats) const;

 private:
  struct Entry {
    NodeState state = NodeState::alive;
    Clock::time_point last;
    bool recovered = false;   // suspect -> alive not yet reported by advance()
    Clock::duration grace{};  // for the agent's reported lateness
    Clock::time_point grace_until;
    std::uint64_t beats = 0;  // hellos and heartbeats heard
  };
  HeartbeatPolicy policy_;
  std::map<std::string, Entry> nodes_;
  std::optional<Clock::time_point> last_advance_;
  std::optional<Clock::time_point> last_heard_any_;  // from any node not lost
};

}  // namespace yadokari::membership
