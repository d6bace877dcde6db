// The coordinator's side of the node agents: hellos (authenticated by the job secret),
// heartbeats fed to the HeartbeatTracker, suspect/lost verdicts, and StopProcesses requests.
#include <algorithm>
#include <array>
#include <cstdio>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "runtime/control/coordinator.hpp"
#include "runtime/control/coordinator_sockets.hpp"
#include "protocol/secret.hpp"

namespace yadokari::control {
namespace {

double seconds(membership::Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string seconds_text(membership::Clock::duration d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", seconds(d));
  return text;
}

}  // namespace

void Coordinator::serve_agent_message(const std::string& routing_id, const std::string& peer,
                                      const protocol::Message& message) {
  const auto now = membership::Clock::now();
  if (const auto* beat = std::get_if<protocol::Heartbeat>(&message)) {
    const auto late = std::chrono::milliseconds(std::max(beat->late_ms, 0));
    heard_from_agent(routing_id, late);
    return;
  }
  const auto& hello = std::get<protocol::AgentHello>(message);
  std::string reason;
  if (!config_.membership) {
    reason = "this job has no node agents";
  } else if (hello.job_id != config_.job_id) {
    reason = "wrong job id";
  } else if (!protocol::secrets_equal(hello.secret, config_.secret)) {
    reason = "wrong job secret";
  } else if (!config_.membership->slots.count(hello.node) && hello.join_slots <= 0) {
    reason = "node " + hello.node + " is not part of this job";
  } else if (config_.membership->slots.count(hello.node) && hello.join_slots > 0 && agents_.count(hello.node) &&
             tracker_->state(hello.node) != membership::NodeState::lost) {
    reason = "node " + hello.node + " is already part of this job";
  } else if (tracker_->state(hello.node) == membership::NodeState::lost) {
    reason = "node " + hello.node + " was declared lost";
  }
  if (reason.empty() && hello.join_slots > 0 && !config_.membership->slots.count(hello.node)) {
    config_.membership->slots[hello.node] = hello.join_slots;
    config_.log("yadokari: node " + hello.node + " joined (" + std::to_string(hello.join_slots) + " slots, agent pid " +
                std::to_string(hello.pid) + " on " + hello.hostname + "); it is used at the next restart or rebalance");
  }
  if (reason.empty()) {
    if (const auto earlier = agents_.find(hello.node); earlier != agents_.end()) {
      // The node's new connection replaces its old one.
      auto& nodes = nodes_of_agent_route_[earlier->second.routing_id];
      nodes.erase(hello.node);
      if (nodes.empty()) nodes_of_agent_route_.erase(earlier->second.routing_id);
    }
    // Other nodes reach its image port at the address its connection came from.
    const bool reachable = hello.image_port > 0 && hello.image_key.size() == 32 && peer != kUnknownPeer;
    agents_[hello.node] =
        AgentEntry{routing_id, hello, reachable ? protocol::image_port_endpoint(peer, hello.image_port) : ""};
    nodes_of_agent_route_[routing_id].insert(hello.node);
    tracker_->joined(hello.node, now);
  } else {
    config_.log("yadokari: refused node agent from " + peer + " (node " + hello.node + ", pid " +
                std::to_string(hello.pid) + " on " + hello.hostname + "): " + reason);
  }
  const std::int32_t interval =
      config_.membership ? static_cast<std::int32_t>(config_.membership->heartbeat.interval.count()) : 0;
  const std::string ack = protocol::encode(protocol::AgentAck{reason.empty(), reason, interval});
  std::array<zmq::const_buffer, 2> frames{zmq::buffer(routing_id), zmq::buffer(ack)};
  (void)zmq::send_multipart(sockets_->ranks, frames, zmq::send_flags::dontwait);
}

void Coordinator::heard_from_agent(const std::string& routing_id, std::chrono::milliseconds late) {
  if (!tracker_) return;
  const auto now = membership::Clock::now();
  // Only the connection a node's agent said hello on speaks for that node.
  if (const auto nodes = nodes_of_agent_route_.find(routing_id); nodes != nodes_of_agent_route_.end())
    for (const auto& node : nodes->second) tracker_->heard(node, now, late);
}

void Coordinator::run_membership_timers() {
  if (!tracker_) return;
  // poll() runs once per burst of messages, thousands of times per checkpoint at scale; a pass over
  // every node each time cost more than the messages (bench/scale/README.md). A verdict a tenth of
  // a heartbeat interval later is none the worse.
  const auto now = membership::Clock::now();
  if (now - membership_checked_ < tracker_->policy().interval / 10) return;
  membership_checked_ = now;
  for (auto& event : tracker_->advance(now)) {
    const std::string& node = event.node;
    switch (event.state) {
      case membership::NodeState::suspect:
        config_.log("yadokari: node " + node + " is suspect: no heartbeat for " + seconds_text(event.silence));
        break;
      case membership::NodeState::alive:
        config_.log("yadokari: node " + node + " is alive again");
        break;
      case membership::NodeState::lost:
        config_.log("yadokari: node " + node + " lost: no heartbeat for " + seconds_text(event.silence) + " (" +
                    std::to_string(tracker_->policy().misses) + " missed intervals of " +
                    std::to_string(tracker_->policy().interval.count()) + " ms)");
        fail_image_orders_of(node);
        lost_.push_back(std::move(event));
        break;
    }
  }
}

std::vector<membership::NodeEvent> Coordinator::take_lost_nodes() {
  std::vector<membership::NodeEvent> lost;
  lost.swap(lost_);
  return lost;
}

membership::BeatCounts Coordinator::heartbeat_mark() const {
  return tracker_ ? tracker_->beat_counts() : membership::BeatCounts{};
}

std::vector<std::string> Coordinator::nodes_unsettled_since(const membership::BeatCounts& mark,
                                                            std::uint64_t beats) const {
  return tracker_ ? tracker_->unsettled_since(mark, beats) : std::vector<std::string>{};
}

std::vector<protocol::NodeStatus> Coordinator::nodes() const {
  std::vector<protocol::NodeStatus> all;
  if (!tracker_) return all;
  const auto now = membership::Clock::now();
  for (const auto& [node, slots] : config_.membership->slots) {
    protocol::NodeStatus status;
    status.node = node;
    status.slots = slots;
    status.hostname = agent_hostname(node);
    const auto state = tracker_->state(node);
    status.state = state ? membership::state_name(*state) : "no agent";
    if (const auto heard = tracker_->last_heard(node)) status.seconds_since_heard = seconds(now - *heard);
    all.push_back(std::move(status));
  }
  return all;
}

void Coordinator::expect_node(const std::string& node, std::int32_t slots) {
  if (config_.membership) config_.membership->slots[node] = slots;
}

bool Coordinator::expects_node(const std::string& node) const {
  return config_.membership && config_.membership->slots.count(node) > 0;
}

std::string Coordinator::agent_hostname(const std::string& node) const {
  const auto agent = agents_.find(node);
  return agent == agents_.end() ? std::string() : agent->second.hello.hostname;
}

bool Coordinator::stop_processes(const std::string& node, const std::vector<std::int64_t>& pids) {
  const auto agent = agents_.find(node);
  if (agent == agents_.end()) return false;
  const std::string bytes = protocol::encode(protocol::StopProcesses{pids});
  std::array<zmq::const_buffer, 2> frames{zmq::buffer(agent->second.routing_id), zmq::buffer(bytes)};
  return zmq::send_multipart(sockets_->ranks, frames, zmq::send_flags::dontwait).has_value();
}

void Coordinator::note_restored(const protocol::RankRestored& restored) {
  if (!restored.refused.empty()) {
    // The rank aborts after sending this; its own stderr may not make it through the launcher.
    config_.log("yadokari: rank " + std::to_string(restored.logical_rank) + " cannot restore: " + restored.refused);
    return;
  }
  ++progress_.restored;
  progress_.last_restored = std::chrono::steady_clock::now();
  progress_.max_restore_seconds = std::max(progress_.max_restore_seconds, restored.restore_seconds);
}

}  // namespace yadokari::control
