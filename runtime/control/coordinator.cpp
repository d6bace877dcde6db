#include "runtime/control/coordinator.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <set>
#include <utility>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "runtime/control/coordinator_sockets.hpp"
#include "protocol/credential.hpp"
#include "protocol/curve.hpp"
#include "protocol/secret.hpp"

namespace yadokari::control {
namespace {

// Anything larger is not one of our messages; refuse it before decoding.
constexpr std::int64_t kMaxMessageBytes = 1 << 20;

zmq::socket_t bound_socket(zmq::context_t& context, const protocol::CurveKeypair& keys, zmq::socket_type type,
                           const std::string& host, int port, const char* purpose) {
  zmq::socket_t socket(context, type);
  protocol::serve_with_curve(socket, keys);
  socket.set(zmq::sockopt::linger, 0);
  socket.set(zmq::sockopt::maxmsgsize, kMaxMessageBytes);
  // Image copies pass through as bursts of chunks (coordinator_images.cpp); at a high-water mark
  // a ROUTER would drop them silently.
  socket.set(zmq::sockopt::sndhwm, 0);
  socket.set(zmq::sockopt::rcvhwm, 0);
  const std::string where = host + ":" + (port > 0 ? std::to_string(port) : std::string("*"));
  try {
    socket.bind("tcp://" + where);
  } catch (const zmq::error_t& e) {
    throw CoordinatorError("cannot listen on " + where + " for " + purpose + ": " + e.what());
  }
  return socket;
}

std::string peer_address(zmq::message_t& frame) {
  try {
    return frame.gets("Peer-Address");
  } catch (const zmq::error_t&) {
    return std::string(kUnknownPeer);
  }
}

// zmq::poll throws on EINTR; a signal only means "look again later".
bool poll_interrupted(const zmq::error_t& e) { return e.num() == EINTR; }

}  // namespace

Coordinator::Coordinator(CoordinatorConfig config) : config_(std::move(config)), sockets_(std::make_unique<Sockets>()) {
  if (!config_.log) config_.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  sockets_->context.set(zmq::ctxopt::blocky, 0);
  // A keypair per coordinator: it never leaves this process; clients get the public half with
  // the job's credential.
  const protocol::CurveKeypair keys = protocol::make_curve_keypair();
  credential_ = protocol::make_credential(config_.secret, keys.public_key);
  sockets_->ranks = bound_socket(sockets_->context, keys, zmq::socket_type::router, config_.bind_host,
                                 config_.control_port, "ranks and node agents");
  sockets_->status = bound_socket(sockets_->context, keys, zmq::socket_type::rep, config_.bind_host, 0, "CLI requests");
  control_endpoint_ = sockets_->ranks.get(zmq::sockopt::last_endpoint);
  status_endpoint_ = sockets_->status.get(zmq::sockopt::last_endpoint);
  if (config_.membership) tracker_.emplace(config_.membership->heartbeat);
  begin_incarnation();
}

void Coordinator::begin_incarnation() {
  ranks_.clear();
  rank_routes_.clear();
  broadcast_plan_.reset();
  progress_ = {};
  checkpoint_wanted_ = false;
  interval_armed_ = false;
  next_interval_checkpoint_ = std::chrono::steady_clock::time_point::max();  // armed once all ranks are up
  if (pending_request_) answer_checkpoint_request(protocol::CheckpointReply{false, 0, "the job is being restarted"});
  if (config_.checkpoint)
    orchestrator_ = std::make_unique<CheckpointOrchestrator>(
        OrchestratorConfig{config_.checkpoint->dir, config_.job_id, config_.flavour, config_.world_size,
                           config_.checkpoint->keep, config_.checkpoint->compression, config_.checkpoint->node_dir,
                           config_.job_ends_at_commit},
        config_.log);
}

Coordinator::~Coordinator() {
  // Agents that joined on their own learn only from us that the job is over; give the message
  // a moment to leave (the sockets otherwise close with linger 0).
  if (agents_.empty()) return;
  const std::string bye = protocol::encode(protocol::AgentBye{});
  for (const auto& [node, agent] : agents_) {
    std::array<zmq::const_buffer, 2> frames{zmq::buffer(agent.routing_id), zmq::buffer(bye)};
    (void)zmq::send_multipart(sockets_->ranks, frames, zmq::send_flags::dontwait);
  }
  sockets_->ranks.set(zmq::sockopt::linger, 500);
}

const std::string& Coordinator::control_endpoint() const { return control_endpoint_; }
const std::string& Coordinator::status_endpoint() const { return status_endpoint_; }
const std::string& Coordinator::credential() const { return credential_; }

std::vector<std::int32_t> Coordinator::registered_ranks() const {
  std::vector<std::int32_t> ranks;
  for (const auto& [rank, entry] : ranks_) ranks.push_back(rank);
  return ranks;
}

std::vector<protocol::RegisterRank> Coordinator::registrations() const {
  std::vector<protocol::RegisterRank> all;
  for (const auto& [rank, entry] : ranks_) all.push_back(entry.registration);
  return all;
}

void Coordinator::poll(std::chrono::milliseconds timeout) {
  // While a checkpoint request waits for its epoch the REP socket must not take another one.
  std::array<zmq::pollitem_t, 2> items{{
      {sockets_->ranks.handle(), 0, ZMQ_POLLIN, 0},
      {sockets_->status.handle(), 0, ZMQ_POLLIN, 0},
  }};
  const int watched = pending_request_ ? 1 : 2;
  try {
    zmq::poll(items.data(), static_cast<std::size_t>(watched), timeout);
  } catch (const zmq::error_t& e) {
    if (!poll_interrupted(e)) throw;
    items[0].revents = items[1].revents = 0;
  }
  if (items[0].revents & ZMQ_POLLIN) receive_rank_messages(nullptr, 0);
  if (watched == 2 && (items[1].revents & ZMQ_POLLIN)) serve_status_request();
  run_checkpoint_timers();
  run_membership_timers();
  run_image_order_timers();
}

protocol::StatusReport Coordinator::query_all(std::chrono::milliseconds timeout) {
  const std::uint64_t query_id = ++last_query_id_;
  std::set<std::int32_t> awaited;
  // Peers that are gone drop it; those ranks end up "not answering".
  send_to_ranks(protocol::QueryStatus{query_id});
  for (const auto& [rank, entry] : ranks_) awaited.insert(rank);

  std::map<std::int32_t, protocol::RankStatus> answers;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto all_answered = [&] {
    for (std::int32_t rank : awaited)
      if (!answers.count(rank)) return false;
    return true;
  };
  while (!all_answered()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    std::array<zmq::pollitem_t, 1> items{{{sockets_->ranks.handle(), 0, ZMQ_POLLIN, 0}}};
    try {
      zmq::poll(items.data(), items.size(), left);
    } catch (const zmq::error_t& e) {
      if (!poll_interrupted(e)) throw;
    }
    if (items[0].revents & ZMQ_POLLIN) receive_rank_messages(&answers, query_id);
  }

  protocol::StatusReport report;
  report.job_id = config_.job_id;
  report.app = config_.app;
  report.flavour = config_.flavour;
  report.world_size = config_.world_size;
  for (auto& [rank, status] : answers) report.ranks.push_back(std::move(status));
  for (std::int32_t rank = 0; rank < config_.world_size; ++rank)
    if (!answers.count(rank)) report.ranks_not_answering.push_back(rank);
  report.nodes = nodes();
  report.relayed_ranks = static_cast<std::uint32_t>(relayed_ranks());
  report.image_chunks_passed_on = image_chunks_passed_on_;
  report.last_committed_epoch = last_committed_epoch_;
  if (status_extras_) status_extras_(report);
  return report;
}

void Coordinator::receive_rank_messages(std::map<std::int32_t, protocol::RankStatus>* answers, std::uint64_t query_id) {
  for (;;) {
    std::vector<zmq::message_t> frames;
    if (!zmq::recv_multipart(sockets_->ranks, std::back_inserter(frames), zmq::recv_flags::dontwait)) return;
    if (frames.size() != 2) continue;  // a DEALER sends exactly one payload frame
    std::string routing_id = frames[0].to_string();
    if (is_relayed_route(routing_id)) continue;  // a peer posing as a relayed rank
    serve_rank_message(std::move(routing_id), peer_address(frames[1]), frames[1].to_string_view(), answers, query_id);
  }
}

void Coordinator::serve_rank_message(std::string routing_id, std::string peer, std::string_view bytes,
                                     std::map<std::int32_t, protocol::RankStatus>* answers, std::uint64_t query_id) {
  protocol::Message message;
  try {
    // Ranks send only these; anything else (a StatusReport with a forged rank count...) is
    // refused before its payload is decoded.
    const protocol::MessageType type = protocol::decode_header(bytes);
    const bool checkpoint_type =
        type == protocol::MessageType::cut_report || type == protocol::MessageType::image_written ||
        type == protocol::MessageType::checkpoint_ask || type == protocol::MessageType::rank_restored ||
        type == protocol::MessageType::image_captured;
    const bool image_type = type == protocol::MessageType::image_chunk ||
                            type == protocol::MessageType::image_order_done ||
                            type == protocol::MessageType::image_orders_done;
    const bool agent_type =
        type == protocol::MessageType::agent_hello || type == protocol::MessageType::heartbeat || image_type;
    // A node's batch of its ranks' messages (never inside another batch).
    if (type == protocol::MessageType::relayed_up && !is_relayed_route(routing_id)) {
      serve_relayed(routing_id, peer, bytes, answers, query_id);
      return;
    }
    if (type != protocol::MessageType::register_rank && type != protocol::MessageType::rank_status &&
        !checkpoint_type && !agent_type)
      throw protocol::ProtocolError("unexpected control message " + std::string(protocol::message_type_name(type)));
    // Image traffic only from an agent that said hello with the job's secret.
    if (image_type && !from_agent(routing_id)) return;
    // CutReport carries a vector: only decode it from a connection that registered, so an
    // unauthenticated peer cannot make us allocate for a forged length.
    if (checkpoint_type && !from_registered(routing_id, -1)) return;
    message = protocol::decode(bytes);
  } catch (const protocol::ProtocolError& e) {
    config_.log("yadokari: ignored control message from " + peer + ": " + e.what());
    return;
  }
  if (std::holds_alternative<protocol::AgentHello>(message) || std::holds_alternative<protocol::Heartbeat>(message)) {
    serve_agent_message(routing_id, peer, message);
  } else if (std::holds_alternative<protocol::ImageChunk>(message) ||
             std::holds_alternative<protocol::ImageOrderDone>(message) ||
             std::holds_alternative<protocol::ImageOrdersDone>(message)) {
    heard_from_agent(routing_id);
    serve_image_message(message);
  } else if (const auto* restored = std::get_if<protocol::RankRestored>(&message)) {
    if (from_registered(routing_id, restored->logical_rank)) note_restored(*restored);
  } else if (const auto* registration = std::get_if<protocol::RegisterRank>(&message)) {
    serve_registration(routing_id, peer, *registration);
  } else if (auto* status = std::get_if<protocol::RankStatus>(&message)) {
    // Only the connection the rank registered on may speak for it; late answers are dropped.
    if (!from_registered(routing_id, status->logical_rank)) return;
    if (answers && status->query_id == query_id) (*answers)[status->logical_rank] = std::move(*status);
  } else {
    std::int32_t rank = -1;
    std::visit(
        [&](const auto& m) {
          if constexpr (requires { m.logical_rank; }) rank = m.logical_rank;
        },
        message);
    if (from_registered(routing_id, rank)) serve_checkpoint_message(message);
  }
}

// rank -1: any registered rank.
bool Coordinator::from_registered(const std::string& routing_id, std::int32_t logical_rank) const {
  if (logical_rank >= 0) {
    const auto entry = ranks_.find(logical_rank);
    return entry != ranks_.end() && entry->second.routing_id == routing_id;
  }
  return rank_routes_.count(routing_id) > 0;
}

void Coordinator::serve_registration(const std::string& routing_id, const std::string& peer,
                                     const protocol::RegisterRank& r) {
  std::string reason;
  if (r.job_id != config_.job_id) {
    reason = "wrong job id";
  } else if (!protocol::secrets_equal(r.secret, config_.secret)) {
    reason = "wrong job secret";
  } else if (r.world_size != config_.world_size) {
    reason = "world size " + std::to_string(r.world_size) + " does not match the job's " +
             std::to_string(config_.world_size);
  } else if (r.logical_rank < 0 || r.logical_rank >= config_.world_size) {
    reason = "logical rank " + std::to_string(r.logical_rank) + " is outside the job's world of " +
             std::to_string(config_.world_size);
  }
  // Within one incarnation a logical rank registers once: a second registration from another
  // connection (a replayed or forged RegisterRank with the secret) must not take the rank over.
  // A restart's ranks register after begin_incarnation() has forgotten the old ones.
  if (const auto known = ranks_.find(r.logical_rank);
      reason.empty() && known != ranks_.end() && known->second.routing_id != routing_id) {
    const protocol::RegisterRank& first = known->second.registration;
    reason = "logical rank " + std::to_string(r.logical_rank) + " is already registered (pid " +
             std::to_string(first.pid) + " on " + first.hostname + ")";
  }
  if (reason.empty()) {
    ranks_[r.logical_rank] = RankEntry{routing_id, r};
    rank_routes_.insert(routing_id);
    broadcast_plan_.reset();
    progress_.registered = ranks_.size();
    progress_.last_registered = std::chrono::steady_clock::now();
    progress_.max_init_seconds = std::max(progress_.max_init_seconds, r.init_seconds);
  } else
    config_.log("yadokari: refused registration from " + peer + " (rank " + std::to_string(r.logical_rank) + ", pid " +
                std::to_string(r.pid) + " on " + r.hostname + "): " + reason);

  send_to_route(routing_id, protocol::encode(protocol::RegisterAck{reason.empty(), reason}));
}

void Coordinator::serve_status_request() {
  std::vector<zmq::message_t> frames;
  if (!zmq::recv_multipart(sockets_->status, std::back_inserter(frames), zmq::recv_flags::dontwait)) return;
  protocol::Message reply;
  try {
    const std::string_view bytes = frames.at(0).to_string_view();
    const protocol::MessageType type = protocol::decode_header(bytes);
    const auto from_this_job = [this](const auto& request) {
      return request.job_id == config_.job_id && protocol::secrets_equal(request.secret, config_.secret);
    };
    const protocol::ErrorReply wrong_job{"wrong job id or secret"};
    // Rebalance and migrate callbacks are set only for jobs that can be restarted elsewhere.
    const auto cannot = [](const std::string& what) {
      return protocol::RebalanceReply{
          false, what + " (only jobs with node agents and checkpoints can: run --sim with --ckpt-dir)"};
    };
    if (type == protocol::MessageType::rebalance_request) {
      const auto request = protocol::decode_as<protocol::RebalanceRequest>(bytes);
      if (!from_this_job(request))
        reply = wrong_job;
      else
        reply = config_.on_rebalance ? config_.on_rebalance() : cannot("this job cannot be rebalanced");
    } else if (type == protocol::MessageType::migrate_request) {
      const auto request = protocol::decode_as<protocol::MigrateRequest>(bytes);
      if (!from_this_job(request))
        reply = wrong_job;
      else
        reply = config_.on_migrate ? config_.on_migrate(request) : cannot("ranks of this job cannot be moved");
    } else if (type == protocol::MessageType::checkpoint_request) {
      const auto request = protocol::decode_as<protocol::CheckpointRequest>(bytes);
      if (from_this_job(request)) {
        serve_checkpoint_request(request);  // answers now or when the epoch ends
        return;
      }
      reply = wrong_job;
    } else if (type != protocol::MessageType::status_request) {
      throw protocol::ProtocolError("expected control message StatusRequest");
    } else {
      const auto request = protocol::decode_as<protocol::StatusRequest>(bytes);
      if (!from_this_job(request))
        reply = wrong_job;
      else
        reply = query_all(config_.status_query_timeout);
    }
  } catch (const protocol::ProtocolError& e) {
    reply = protocol::ErrorReply{e.what()};
  }
  const std::string bytes = protocol::encode(reply);
  (void)sockets_->status.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
}

}  // namespace yadokari::control
