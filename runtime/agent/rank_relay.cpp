#include "runtime/agent/rank_relay.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <utility>
#include <vector>
#include <zmq_addon.hpp>

#include "protocol/relay_socket.hpp"

namespace yadokari::agent {
namespace {

// A rank's own messages are far smaller; anything larger is not one of ours.
constexpr std::int64_t kMaxRankMessageBytes = 1 << 20;

}  // namespace

RankRelay::RankRelay(zmq::context_t& context, std::string path)
    : path_(std::move(path)), socket_(context, zmq::socket_type::router) {
  if (const std::string problem = protocol::prepare_relay_directory(); !problem.empty())
    throw RelayError("cannot relay the ranks of this node: " + problem);
  if (protocol::relay_listening(path_))
    throw RelayError("cannot relay the ranks of this node: another agent of the job listens on " + path_);
  (void)::unlink(path_.c_str());  // left by an agent that was killed
  // And those that killed agents of other jobs left, which nothing else would ever remove.
  (void)protocol::remove_dead_relay_sockets(std::chrono::minutes(1));
  socket_.set(zmq::sockopt::linger, 0);
  socket_.set(zmq::sockopt::maxmsgsize, kMaxRankMessageBytes);
  socket_.set(zmq::sockopt::sndhwm, 0);
  socket_.set(zmq::sockopt::rcvhwm, 0);
  // A message for a rank that is gone fails instead of vanishing, so the rank is forgotten.
  socket_.set(zmq::sockopt::router_mandatory, true);
  try {
    socket_.bind("ipc://" + path_);
  } catch (const zmq::error_t& e) {
    throw RelayError("cannot relay the ranks of this node: cannot listen on " + path_ + ": " + e.what());
  }
}

RankRelay::~RankRelay() { (void)::unlink(path_.c_str()); }

std::uint32_t RankRelay::number_of(const std::string& routing_id) {
  const auto [entry, added] = numbers_.try_emplace(routing_id, next_number_);
  if (added) routes_[next_number_++] = routing_id;
  return entry->second;
}

void RankRelay::receive() {
  for (;;) {
    std::vector<zmq::message_t> frames;
    if (!zmq::recv_multipart(socket_, std::back_inserter(frames), zmq::recv_flags::dontwait)) return;
    if (frames.size() != 2) continue;  // a rank's DEALER sends exactly one payload frame
    const std::uint32_t from = number_of(frames[0].to_string());
    if (pending_.letters.empty()) pending_since_ = Clock::now();
    pending_bytes_ += frames[1].size();
    pending_from_.insert(from);
    pending_.letters.push_back({from, frames[1].to_string()});
  }
}

std::optional<protocol::RelayedUp> RankRelay::take_due(Clock::time_point now) {
  if (pending_.letters.empty()) return std::nullopt;
  const bool everyone = pending_from_.size() >= routes_.size();
  const bool large = pending_bytes_ >= protocol::RelayedUp::kMaxBytes;
  if (!everyone && !large && now - pending_since_ < kLinger) return std::nullopt;
  protocol::RelayedUp due;
  // Keep a batch under the cap: what does not fit waits for the next one (due at once).
  std::size_t bytes = 0, count = 0;
  for (const auto& letter : pending_.letters) {
    if (count > 0 && bytes + letter.bytes.size() > protocol::RelayedUp::kMaxBytes) break;
    bytes += letter.bytes.size();
    ++count;
  }
  due.letters.assign(std::make_move_iterator(pending_.letters.begin()),
                     std::make_move_iterator(pending_.letters.begin() + static_cast<std::ptrdiff_t>(count)));
  pending_.letters.erase(pending_.letters.begin(), pending_.letters.begin() + static_cast<std::ptrdiff_t>(count));
  pending_bytes_ -= bytes;
  pending_from_.clear();
  for (const auto& letter : pending_.letters) pending_from_.insert(letter.from);
  return due;
}

std::chrono::milliseconds RankRelay::until_due(Clock::time_point now) const {
  if (pending_.letters.empty()) return kLinger;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(pending_since_ + kLinger - now);
  return std::clamp(left, std::chrono::milliseconds(0), kLinger);
}

void RankRelay::deliver(const protocol::RelayedDown& down) {
  for (const std::uint32_t to : down.to) {
    const auto route = routes_.find(to);
    if (route == routes_.end()) continue;
    std::array<zmq::const_buffer, 2> frames{zmq::buffer(route->second), zmq::buffer(down.bytes)};
    try {
      (void)zmq::send_multipart(socket_, frames, zmq::send_flags::dontwait);
    } catch (const zmq::error_t& e) {
      if (e.num() != EHOSTUNREACH) throw;
      numbers_.erase(route->second);  // the rank is gone (it ended, or a restart replaced it)
      routes_.erase(route);
    }
  }
}

}  // namespace yadokari::agent
