#include "runtime/membership/heartbeat_tracker.hpp"

#include <algorithm>

namespace yadokari::membership {

const char* state_name(NodeState state) {
  switch (state) {
    case NodeState::alive:
      return "alive";
    case NodeState::suspect:
      return "suspect";
    case NodeState::lost:
      return "lost";
  }
  return "unknown";
}

void HeartbeatTracker::joined(const std::string& node, Clock::time_point now) {
  auto [entry, added] = nodes_.try_emplace(node);
  if (!added && entry->second.state == NodeState::lost) return;
  entry->second.last = now;
  ++entry->second.beats;
  last_heard_any_ = last_heard_any_ ? std::max(*last_heard_any_, now) : now;
  if (entry->second.state == NodeState::suspect) entry->second.recovered = true;
  entry->second.state = NodeState::alive;
}

void HeartbeatTracker::heard(const std::string& node, Clock::time_point now, Clock::duration sender_late) {
  const auto entry = nodes_.find(node);
  if (entry == nodes_.end() || entry->second.state == NodeState::lost) return;
  entry->second.last = now;
  ++entry->second.beats;
  last_heard_any_ = last_heard_any_ ? std::max(*last_heard_any_, now) : now;
  if (sender_late > Clock::duration::zero()) {
    const Clock::duration grace = std::min<Clock::duration>(2 * sender_late, policy_.max_late_grace);
    if (now >= entry->second.grace_until || grace > entry->second.grace) entry->second.grace = grace;
    entry->second.grace_until = now + policy_.late_memory;
  }
  if (entry->second.state == NodeState::suspect) {
    entry->second.state = NodeState::alive;
    entry->second.recovered = true;
  }
}

std::vector<NodeEvent> HeartbeatTracker::advance(Clock::time_point now) {
  if (last_advance_ && now - *last_advance_ > policy_.interval) {
    const Clock::duration stalled = now - *last_advance_;
    for (auto& [node, entry] : nodes_) entry.last = std::min(entry.last + stalled, now);
    if (last_heard_any_) last_heard_any_ = std::min(*last_heard_any_ + stalled, now);
  }
  last_advance_ = now;
  const Clock::duration common_quiet = last_heard_any_ ? now - *last_heard_any_ : Clock::duration::zero();
  const Clock::duration forgiven = std::min(common_quiet, quiet_allowance());
  std::vector<NodeEvent> events;
  for (auto& [node, entry] : nodes_) {
    if (entry.state == NodeState::lost) continue;
    // Judged on the silence beyond what every node shares; reported as it was.
    const Clock::duration silence = now - entry.last - forgiven;
    // "Missed" = a whole interval plus half of one for jitter went by without a heartbeat.
    const auto late = policy_.interval + policy_.interval / 2;
    NodeState next = NodeState::alive;
    const Clock::duration grace = now < entry.grace_until ? entry.grace : Clock::duration::zero();
    if (silence >= loss_after() + grace && silence >= late)
      next = NodeState::lost;
    else if (silence >= late)
      next = NodeState::suspect;
    if (next != entry.state) {
      entry.state = next;
      entry.recovered = false;
      events.push_back(NodeEvent{node, next, now - entry.last});
    } else if (entry.recovered) {
      entry.recovered = false;
      events.push_back(NodeEvent{node, NodeState::alive, now - entry.last});
    }
  }
  return events;
}

Clock::duration HeartbeatTracker::late_grace(const std::string& node, Clock::time_point now) const {
  const auto entry = nodes_.find(node);
  if (entry == nodes_.end() || now >= entry->second.grace_until) return Clock::duration::zero();
  return entry->second.grace;
}

BeatCounts HeartbeatTracker::beat_counts() const {
  BeatCounts counts;
  for (const auto& [node, entry] : nodes_) counts[node] = entry.beats;
  return counts;
}

std::vector<std::string> HeartbeatTracker::unsettled_since(const BeatCounts& mark, std::uint64_t beats) const {
  std::vector<std::string> unsettled;
  for (const auto& [node, entry] : nodes_) {
    if (entry.state == NodeState::lost) continue;
    const auto before = mark.find(node);
    const std::uint64_t heard = entry.beats - (before == mark.end() ? 0 : before->second);
    if (heard < beats) unsettled.push_back(node);
  }
  return unsettled;
}

std::optional<NodeState> HeartbeatTracker::state(const std::string& node) const {
  const auto entry = nodes_.find(node);
  if (entry == nodes_.end()) return std::nullopt;
  return entry->second.state;
}

std::optional<Clock::time_point> HeartbeatTracker::last_heard(const std::string& node) const {
  const auto entry = nodes_.find(node);
  if (entry == nodes_.end()) return std::nullopt;
  return entry->second.last;
}

std::vector<std::string> HeartbeatTracker::nodes() const {
  std::vector<std::string> names;
  for (const auto& [node, entry] : nodes_) names.push_back(node);
  return names;
}

}  // namespace yadokari::membership
