#pragma once
// The agent's relay for the ranks of its node. Each rank connects to the node-local relay socket
// (protocol/relay_socket.hpp) instead of the coordinator; the relay forwards what its ranks send
// in batches (RelayedUp) and hands each RelayedDown to the ranks it names. At a checkpoint every
// rank of a node reports within moments of the others, so the front end handles a message per
// node and round instead of one per rank, and one connection per node (bench/scale/README.md has
// the measurements). Single-threaded: the agent runs it on a thread of its own.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <zmq.hpp>

#include "common/error.hpp"
#include "protocol/codec.hpp"

namespace yadokari::agent {

// The relay socket cannot be set up: "cannot relay the ranks of this node: ...".
class RelayError : public yadokari::Error {
 public:
  using yadokari::Error::Error;
};

class RankRelay {
 public:
  using Clock = std::chrono::steady_clock;
  // A batch waits at most this long for the node's other ranks.
  static constexpr std::chrono::milliseconds kLinger{10};

  // Binds the relay socket at `path` (protocol::relay_socket_path), replacing a socket file that
  // nothing listens on any more.
  RankRelay(zmq::context_t& context, std::string path);
  ~RankRelay();  // removes the socket file
  RankRelay(const RankRelay&) = delete;
  RankRelay& operator=(const RankRelay&) = delete;

  zmq::socket_t& socket() { return socket_; }  // to poll for input
  const std::string& path() const { return path_; }

  // Takes in everything the ranks sent so far (never blocks).
  void receive();
  // The batch to forward, once it is due: it holds a message from every rank connection known,
  // or is large, or its first message waited kLinger.
  std::optional<protocol::RelayedUp> take_due(Clock::time_point now);
  // How long until the pending batch is due (kLinger when none is pending).
  std::chrono::milliseconds until_due(Clock::time_point now) const;
  // Sends `down.bytes` to each named rank connection; connections that are gone are forgotten.
  void deliver(const protocol::RelayedDown& down);

  std::size_t connections() const { return routes_.size(); }

 private:
  std::uint32_t number_of(const std::string& routing_id);

  std::string path_;
  zmq::socket_t socket_;
  std::map<std::string, std::uint32_t> numbers_;  // routing id -> number
  std::map<std::uint32_t, std::string> routes_;   // number -> routing id
  std::uint32_t next_number_ = 1;
  protocol::RelayedUp pending_;
  std::set<std::uint32_t> pending_from_;
  std::size_t pending_bytes_ = 0;
  Clock::time_point pending_since_{};
};

}  // namespace yadokari::agent
