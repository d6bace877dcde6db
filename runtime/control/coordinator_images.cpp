// The coordinator's side of node-local images (--node-dir): image orders to the agents (verify,
// copy: sent node to node, to the receiver's image port; through us only to an agent without one),
// the replicas an epoch waits for before it commits, and telling agents which epochs to keep.
#include <array>
#include <map>
#include <set>
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
  return order_images(node, {std::move(order)}).front();
}

// One message per node however many images it holds: the front end's messages grow with the nodes.
std::vector<std::uint64_t> Coordinator::order_images(const std::string& node,
                                                     std::vector<protocol::ImageOrder> orders) {
  std::vector<std::uint64_t> ids;
  protocol::ImageOrders batch;
  const auto send_batch = [&] {
    if (!batch.orders.empty()) send_to_agent(node, batch);
    batch.orders.clear();
  };
  const bool can_send = agents_.count(node) && (!tracker_ || node_usable(tracker_->state(node)));
  for (auto& order : orders) {
    order.order_id = ++last_order_id_;
    ids.push_back(order.order_id);
    PendingOrder pending{std::chrono::steady_clock::now() + protocol::copy_timeout(order.size), node,
                         order.kind == protocol::ImageOrderKind::copy ? order.to_node : std::string(), std::nullopt,
                         order.epoch};
    orders_.emplace(order.order_id, pending);
    const bool can_receive = pending.to_node.empty() || (agents_.count(pending.to_node) &&
                                                         (!tracker_ || node_usable(tracker_->state(pending.to_node))));
    if (!can_send) {
      finish_image_order({order.order_id, false, "node " + node + " has no live agent"});
      continue;
    }
    if (!can_receive) {
      finish_image_order({order.order_id, false, "node " + pending.to_node + " has no live agent"});
      continue;
    }
    // The bytes go node to node when the receiver has an image port; we only say who copies what.
    if (!pending.to_node.empty())
      if (const auto& to = agents_.at(pending.to_node); !to.image_endpoint.empty()) {
        order.to_endpoint = to.image_endpoint;
        order.to_key = to.hello.image_key;
      }
    batch.orders.push_back(std::move(order));
    if (batch.orders.size() == protocol::ImageOrders::kMaxOrders) send_batch();
  }
  send_batch();
  return ids;
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
  } else if (const auto* several = std::get_if<protocol::ImageOrdersDone>(&message)) {
    for (const auto& each : several->done) finish_image_order(each);
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
  std::set<std::string> is_live;                    // one lookup per image, not a pass over the nodes
  std::map<std::string, std::string> node_by_host;  // one lookup per image, not a pass over the agents
  for (const auto& [node, agent] : agents_) {
    node_by_host.emplace(agent.hello.hostname, node);
    if (!tracker_ || node_usable(tracker_->state(node))) {
      live.push_back(node);
      is_live.insert(node);
    }
  }
  std::map<std::string, std::string> partner_of;
  for (std::size_t i = 0; i < live.size(); ++i)
    if (live.size() > 1) partner_of[live[i]] = live[(i + 1) % live.size()];
  std::vector<ReplicaResult> results;                                         // known at once
  std::map<std::string, std::vector<protocol::ImageOrder>> copies_by_origin;  // one message per node
  bool told_no_partner = false;
  for (const auto& image : images) {
    const auto rank = ranks_.find(image.rank);
    const auto host = rank == ranks_.end() ? node_by_host.end() : node_by_host.find(rank->second.registration.hostname);
    const std::string origin = host == node_by_host.end() ? std::string() : host->second;
    ReplicaResult result{image.rank, false, {}, {}};
    if (origin.empty()) {
      result.error = "rank " + std::to_string(image.rank) + " runs on a host without a node agent";
    } else if (!is_live.count(origin)) {
      result.error = "node " + origin + ", which holds rank " + std::to_string(image.rank) + "'s image, is lost";
    } else if (!partner_of.count(origin)) {
      if (!told_no_partner)
        config_.log("yadokari: epoch " + std::to_string(epoch) +
                    ": no other live node to hold replicas; each image is kept on its own node only");
      told_no_partner = true;
      result.ok = true;
      result.nodes = {origin};
    } else {
      copies_by_origin[origin].push_back(protocol::ImageOrder{
          0, protocol::ImageOrderKind::copy, epoch, image.rank, image.size, image.xxh64, partner_of[origin], {}, {}});
      continue;
    }
    results.push_back(std::move(result));
  }
  for (auto& [origin, copies] : copies_by_origin) {
    std::vector<std::pair<std::int32_t, std::string>> rank_and_partner;
    for (const auto& copy : copies) rank_and_partner.emplace_back(copy.rank, copy.to_node);
    const auto ids = order_images(origin, std::move(copies));
    for (std::size_t c = 0; c < ids.size(); ++c) {
      const auto& [rank, partner] = rank_and_partner[c];
      if (const auto pending = orders_.find(ids[c]); pending != orders_.end()) {
        pending->second.replica = ReplicaResult{rank, false, {origin, partner}, {}};
        continue;
      }
      // Failed at once (a node without a live agent).
      const auto failed = take_image_order_result(ids[c]);
      results.push_back(ReplicaResult{rank, false, {}, failed ? failed->error : "the copy could not start"});
    }
  }
  for (const auto& result : results)
    if (orchestrator_->current_epoch() == epoch) apply(orchestrator_->on_replica(result));
}

void Coordinator::send_keep_epochs() {
  protocol::KeepEpochs keep;
  keep.epochs = storage::EpochStore(config_.checkpoint->dir).committed_epochs();
  for (const auto& [node, agent] : agents_)
    if (!tracker_ || node_usable(tracker_->state(node))) send_to_agent(node, keep);
}

}  // namespace yadokari::control
