// The coordinator's side of node-local images (--node-dir): image orders to the agents (verify,
// copy: sent node to node, to the receiver's image port; through us only to an agent without one),
// the replicas an epoch waits for before it commits, and telling agents which epochs to keep.
#include <algorithm>
#include <array>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "runtime/control/coordinator.hpp"
#include "runtime/control/coordinator_sockets.hpp"
#include "checkpoint/storage/epoch_store.hpp"

namespace yadokari::control {
namespace {

bool node_usable(const std::optional<membership::NodeState>& state) {
  return state && *state != membership::NodeState::lost;
}

}  // namespace

bool Coordinator::from_agent(const std::string& routing_id) const {
  return nodes_of_agent_route_.count(routing_id) > 0;
}

std::string Coordinator::node_of_host(const std::string& hostname) const {
  for (const auto& [node, agent] : agents_)
    if (agent.hello.hostname == hostname) return node;
  return {};
}

void Coordinator::send_to_agent(const std::string& node, const protocol::Message& message) {
  const auto agent = agents_.find(node);
  if (agent == agents_.end()) return;
  const std::string bytes = protocol::encode(message);
  std::array<zmq::const_buffer, 2> frames{zmq::buffer(agent->second.routing_id), zmq::buffer(bytes)};
  (void)zmq::send_multipart(sockets_->ranks, frames, zmq::send_flags::dontwait);
}

std::uint64_t Coordinator::order_image(const std::string& node, protocol::ImageOrder order) {
  order.order_id = ++last_order_id_;
  PendingOrder pending{std::chrono::steady_clock::now() + protocol::copy_timeout(order.size), node,
                       order.kind == protocol::ImageOrderKind::copy ? order.to_node : std::string(), std::nullopt,
                       order.epoch};
  orders_.emplace(order.order_id, pending);
  const bool can_send = agents_.count(node) && (!tracker_ || node_usable(tracker_->state(node)));
  const bool can_receive = pending.to_node.empty() || (agents_.count(pending.to_node) &&
                                                       (!tracker_ || node_usable(tracker_->state(pending.to_node))));
  if (!can_send)
    finish_image_order({order.order_id, false, "node " + node + " has no live agent"});
  else if (!can_receive)
    finish_image_order({order.order_id, false, "node " + pending.to_node + " has no live agent"});
  else {
    // The bytes go node to node when the receiver has an image port; we only say who copies what.
    if (!pending.to_node.empty())
      if (const auto& to = agents_.at(pending.to_node); !to.image_endpoint.empty()) {
        order.to_endpoint = to.image_endpoint;
        order.to_key = to.hello.image_key;
      }
    send_to_agent(node, order);
  }
  return order.order_id;
}

std::optional<protocol::ImageOrderDone> Coordinator::take_image_order_result(std::uint64_t order_id) {
  const auto result = order_results_.find(order_id);
  if (result == order_results_.end()) return std::nullopt;
  protocol::ImageOrderDone done = std::move(result->second);
  order_results_.erase(result);
  return done;
}

void Coordinator::serve_image_message(const protocol::Message& message) {
  if (const auto* chunk = std::get_if<protocol::ImageChunk>(&message)) {
    // Relayed as is; only for an order we gave, to the node it names.
    const auto order = orders_.find(chunk->order_id);
    if (order != orders_.end() && order->second.to_node == chunk->to_node) {
      ++image_chunks_passed_on_;
      send_to_agent(chunk->to_node, *chunk);
    }
  } else if (const auto* done = std::get_if<protocol::ImageOrderDone>(&message)) {
    finish_image_order(*done);
  }
}

void Coordinator::finish_image_order(const protocol::ImageOrderDone& done) {
  const auto order = orders_.find(done.order_id);
  if (order == orders_.end()) return;  // answered already (timed out, node lost)
  PendingOrder pending = std::move(order->second);
  orders_.erase(order);
  if (!pending.replica) {
    order_results_[done.order_id] = done;
    return;
  }
  ReplicaResult result = std::move(*pending.replica);
  result.ok = done.ok;
  result.error = done.error;
  if (!done.ok) result.nodes.clear();
  // An answer for an epoch that was abandoned meanwhile (restart) is ignored by the orchestrator.
  if (orchestrator_ && orchestrator_->current_epoch() == pending.epoch) apply(orchestrator_->on_replica(result));
}

void Coordinator::run_image_order_timers() {
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::uint64_t> late;
  for (const auto& [id, order] : orders_)
    if (now >= order.deadline) late.push_back(id);
  for (const auto id : late) {
    const PendingOrder& order = orders_.at(id);
    const std::string what = order.to_node.empty() ? "verifying on node " + order.node
                                                   : "copying from node " + order.node + " to node " + order.to_node;
    finish_image_order({id, false, what + " did not finish in time"});
  }
}

void Coordinator::fail_image_orders_of(const std::string& node) {
  std::vector<std::uint64_t> affected;
  for (const auto& [id, order] : orders_)
    if (order.node == node || order.to_node == node) affected.push_back(id);
  for (const auto id : affected) finish_image_order({id, false, "node " + node + " was lost"});
}

// Each image goes to the next live node after its writer's (node ids in order, wrapping), so
// losing any one node leaves a copy of every image.
void Coordinator::replicate(const std::vector<ImageToReplicate>& images) {
  const std::uint64_t epoch = orchestrator_->current_epoch().value_or(0);
  std::vector<std::string> live;
  for (const auto& [node, agent] : agents_)
    if (!tracker_ || node_usable(tracker_->state(node))) live.push_back(node);
  bool told_no_partner = false;
  for (const auto& image : images) {
    const auto rank = ranks_.find(image.rank);
    const std::string origin = rank == ranks_.end() ? std::string() : node_of_host(rank->second.registration.hostname);
    ReplicaResult result{image.rank, false, {}, {}};
    std::string partner;
    for (std::size_t i = 0; i < live.size() && !origin.empty(); ++i)
      if (live[i] == origin)
        for (std::size_t step = 1; step < live.size() && partner.empty(); ++step)
          partner = live[(i + step) % live.size()];
    const bool origin_live = std::find(live.begin(), live.end(), origin) != live.end();
    if (origin.empty()) {
      result.error = "rank " + std::to_string(image.rank) + " runs on a host without a node agent";
    } else if (!origin_live) {
      result.error = "node " + origin + ", which holds rank " + std::to_string(image.rank) + "'s image, is lost";
    } else if (partner.empty()) {
      if (!told_no_partner)
        config_.log("yadokari: epoch " + std::to_string(epoch) +
                    ": no other live node to hold replicas; each image is kept on its own node only");
      told_no_partner = true;
      result.ok = true;
      result.nodes = {origin};
    } else {
      const std::uint64_t id = order_image(
          origin, protocol::ImageOrder{
                      0, protocol::ImageOrderKind::copy, epoch, image.rank, image.size, image.xxh64, partner, {}, {}});
      if (const auto pending = orders_.find(id); pending != orders_.end()) {
        pending->second.replica = ReplicaResult{image.rank, false, {origin, partner}, {}};
        continue;
      }
      // Failed at once (a node without a live agent).
      const auto failed = take_image_order_result(id);
      result.error = failed ? failed->error : "the copy could not start";
    }
    if (orchestrator_->current_epoch() == epoch) apply(orchestrator_->on_replica(result));
  }
}

void Coordinator::send_keep_epochs() {
  protocol::KeepEpochs keep;
  keep.epochs = storage::EpochStore(config_.checkpoint->dir).committed_epochs();
  for (const auto& [node, agent] : agents_)
    if (!tracker_ || node_usable(tracker_->state(node))) send_to_agent(node, keep);
}

}  // namespace yadokari::control
