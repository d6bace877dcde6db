// The coordinator's side of the agents' rank relay (runtime/agent/rank_relay.hpp): a relayed
// rank's route names its agent's connection and the agent's number for the rank, so the rest of
// the coordinator treats it as any rank's connection. Messages to many ranks go once per agent.
#include <array>
#include <cstring>
#include <map>
#include <utility>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "runtime/control/coordinator.hpp"
#include "runtime/control/coordinator_sockets.hpp"

namespace yadokari::control {
namespace {

// ZeroMQ's own routing ids start with a zero byte; a relayed route starts with this instead, and
// a peer that names itself so is not heard (Coordinator::receive_rank_messages).
constexpr char kRelayedMark = '\x01';

std::string relayed_route(const std::string& agent_route, std::uint32_t number) {
  std::string route(1, kRelayedMark);
  route += agent_route;
  route.append(reinterpret_cast<const char*>(&number), sizeof number);
  return route;
}

// The agent's routing id and its number for the rank, from a relayed route.
std::pair<std::string, std::uint32_t> split_relayed_route(const std::string& route) {
  std::uint32_t number = 0;
  std::memcpy(&number, route.data() + route.size() - sizeof number, sizeof number);
  return {route.substr(1, route.size() - 1 - sizeof number), number};
}

}  // namespace

bool Coordinator::is_relayed_route(const std::string& route) {
  return route.size() > 1 + sizeof(std::uint32_t) && route[0] == kRelayedMark;
}

std::size_t Coordinator::relayed_ranks() const {
  std::size_t count = 0;
  for (const auto& [rank, entry] : ranks_) count += is_relayed_route(entry.routing_id) ? 1 : 0;
  return count;
}

void Coordinator::serve_relayed(const std::string& agent_route, const std::string& peer, std::string_view bytes,
                                std::map<std::int32_t, protocol::RankStatus>* answers, std::uint64_t query_id) {
  // Decoded only from an agent that said hello with the job's secret: a batch carries a vector.
  if (!from_agent(agent_route)) return;
  protocol::RelayedUp batch;
  try {
    batch = protocol::decode_as<protocol::RelayedUp>(bytes);
  } catch (const protocol::ProtocolError& e) {
    config_.log("yadokari: ignored relayed messages from " + peer + ": " + e.what());
    return;
  }
  heard_from_agent(agent_route);
  ++relayed_batches_;
  for (const protocol::RelayedLetter& letter : batch.letters) {
    // serve_rank_message refuses anything but a rank's own messages (a batch inside a batch...).
    serve_rank_message(relayed_route(agent_route, letter.from), peer + " (relayed)", letter.bytes, answers, query_id);
  }
}

void Coordinator::send_to_route(const std::string& route, const std::string& bytes) {
  if (!is_relayed_route(route)) {
    std::array<zmq::const_buffer, 2> frames{zmq::buffer(route), zmq::buffer(bytes)};
    // ROUTER drops messages for peers that are gone; the launcher's exit ends the job then.
    (void)zmq::send_multipart(sockets_->ranks, frames, zmq::send_flags::dontwait);
    return;
  }
  const auto [agent_route, number] = split_relayed_route(route);
  const std::string down = protocol::encode(protocol::RelayedDown{{number}, bytes});
  std::array<zmq::const_buffer, 2> frames{zmq::buffer(agent_route), zmq::buffer(down)};
  (void)zmq::send_multipart(sockets_->ranks, frames, zmq::send_flags::dontwait);
}

void Coordinator::swap_libraries(const std::set<std::int32_t>& kept, std::uint64_t epoch, const std::string& dir) {
  const std::string stay = protocol::encode(protocol::SwapLibrary{epoch, dir, false});
  const std::string leave = protocol::encode(protocol::SwapLibrary{epoch, dir, true});
  for (const auto& [rank, entry] : ranks_) send_to_route(entry.routing_id, kept.count(rank) ? stay : leave);
}

void Coordinator::send_to_ranks(const protocol::Message& message) {
  // Who gets a broadcast changes only when a rank registers: grouping 16,384 ranks by agent at
  // every broadcast cost the front end more than the broadcast itself (bench/scale/README.md).
  if (!broadcast_plan_) {
    BroadcastPlan plan;
    for (const auto& [rank, entry] : ranks_) {
      if (!is_relayed_route(entry.routing_id)) {
        plan.direct.push_back(entry.routing_id);
        continue;
      }
      const auto [agent_route, number] = split_relayed_route(entry.routing_id);
      plan.relayed[agent_route].push_back(number);
    }
    broadcast_plan_ = std::move(plan);
  }
  const std::string bytes = protocol::encode(message);
  for (const std::string& route : broadcast_plan_->direct) send_to_route(route, bytes);
  for (const auto& [agent_route, numbers] : broadcast_plan_->relayed) {
    const std::string down = protocol::encode(protocol::RelayedDown{numbers, bytes});
    std::array<zmq::const_buffer, 2> frames{zmq::buffer(agent_route), zmq::buffer(down)};
    (void)zmq::send_multipart(sockets_->ranks, frames, zmq::send_flags::dontwait);
  }
}

}  // namespace yadokari::control
