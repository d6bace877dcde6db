#pragma once
// The conversation between a node agent (runtime/agent/) and the coordinator: hello and
// heartbeats, stop orders, node-local image orders and chunks.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/message_type.hpp"

namespace yadokari::protocol {

// ---------------------------------------------------------------------------------------------
// Node agents (runtime/agent): one per node, on the same ROUTER as the ranks.
//   agent -> coordinator   AgentHello (job id + secret), then Heartbeat every interval
//   coordinator -> agent   AgentAck (refusals carry the reason; the agent exits)
//   coordinator -> agent   StopProcesses: kill these pids on your node (a restart's "stop")

struct AgentHello {
  static constexpr MessageType kType = MessageType::agent_hello;
  std::string job_id;
  std::string secret;
  std::string node;  // the node's id in the cluster ("n2")
  std::string hostname;
  std::int64_t pid = 0;
  // > 0: a node that was not part of the job joins it with this many slots (`yadokari join`).
  std::int32_t join_slots = 0;
  // With node-local storage: the TCP port on which this agent takes image copies from other
  // agents (0: none; copies to it go through the coordinator), and its CURVE public key there.
  std::int32_t image_port = 0;
  std::string image_key;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(job_id, secret, node, hostname, pid, join_slots, image_port, image_key);
  }
};

struct AgentAck {
  static constexpr MessageType kType = MessageType::agent_ack;
  bool accepted = false;
  std::string reason;
  std::int32_t heartbeat_ms = 0;  // how often to send Heartbeat

  template <class Archive>
  void serialize(Archive& ar) {
    ar(accepted, reason, heartbeat_ms);
  }
};

struct Heartbeat {
  static constexpr MessageType kType = MessageType::heartbeat;
  std::uint64_t sequence = 0;
  // How much later than due the agent sent this beat (its own scheduling delay): a node whose
  // agent waits for a CPU gets a longer grace before its silence counts as a loss.
  std::int32_t late_ms = 0;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(sequence, late_ms);
  }
};

struct StopProcesses {
  static constexpr MessageType kType = MessageType::stop_processes;
  std::vector<std::int64_t> pids;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(pids);
  }
};

// --- Node-local images (--node-dir): agents keep each node's images and move them ---
// Images live at <node dir>/<job id>/<epoch>/rank-<L>.img on the node that holds them.

enum class ImageOrderKind : std::uint8_t {
  copy = 0,    // send the image to `to_node`'s agent (ImageChunk); that agent answers
  verify = 1,  // check every checksum and the header (job, rank, epoch); this agent answers
};

// Coordinator -> agent of the node that holds the image.
struct ImageOrder {
  static constexpr MessageType kType = MessageType::image_order;
  std::uint64_t order_id = 0;
  ImageOrderKind kind = ImageOrderKind::verify;
  std::uint64_t epoch = 0;
  std::int32_t rank = -1;
  std::uint64_t size = 0;  // the whole file, as the MANIFEST (or ImageWritten) says
  std::uint64_t xxh64 = 0;
  std::string to_node;  // copy only
  // Copy only: where `to_node`'s agent takes copies (tcp://address:port, the address its
  // connection to the coordinator came from) and its key there; empty: send the chunks to the
  // coordinator, which passes them on.
  std::string to_endpoint;
  std::string to_key;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(order_id, kind, epoch, rank, size, xxh64, to_node, to_endpoint, to_key);
  }
};

// Agent -> agent of `to_node` (its image port), or agent -> coordinator -> that agent when it has
// none; in order, a copy is a sequence of chunks, the last one flagged. Chunks stay well under the
// control plane's 1 MiB message cap. `secret` is the job's: an image port takes chunks only with it.
struct ImageChunk {
  static constexpr MessageType kType = MessageType::image_chunk;
  static constexpr std::size_t kMaxBytes = 256 * 1024;
  std::uint64_t order_id = 0;
  std::uint64_t epoch = 0;
  std::int32_t rank = -1;
  std::uint64_t size = 0;  // expected, from the order: the receiver checks the copy against them
  std::uint64_t xxh64 = 0;
  std::string to_node;
  std::uint64_t offset = 0;
  bool last = false;
  std::string bytes;
  std::string secret;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(order_id, epoch, rank, size, xxh64, to_node, offset, last, bytes, secret);
  }
};

// How long a copy of `bytes` may take: long enough for a large image over a slow link, short
// enough that a stuck copy ends the epoch. The coordinator fails the order after it; the sending
// agent keeps its connection for the copy that long.
inline std::chrono::steady_clock::duration copy_timeout(std::uint64_t bytes) {
  constexpr std::uint64_t kSlowestBytesPerSecond = 10u << 20;
  return std::chrono::seconds(30 + bytes / kSlowestBytesPerSecond);
}

// An agent's image port as another node reaches it: the address its connection to the coordinator
// came from (as ZeroMQ reports a peer: "10.0.0.2", or "::1", put in brackets) and its port.
// An IPv4 peer of a dual-stack socket, "::ffff:10.0.0.2", as "10.0.0.2".
inline std::string plain_peer_address(std::string address) {
  constexpr std::string_view kMapped = "::ffff:";
  if (address.starts_with(kMapped) && address.find('.') != std::string::npos) address.erase(0, kMapped.size());
  return address;
}

inline std::string image_port_endpoint(const std::string& peer, std::int32_t port) {
  const std::string address = plain_peer_address(peer);
  const bool v6 = address.find(':') != std::string::npos;
  return "tcp://" + (v6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
}

// Agent -> coordinator: the order is done (copy: by the receiving agent, once the copy is durable
// and verified; or by the sending one when it cannot read its image).
struct ImageOrderDone {
  static constexpr MessageType kType = MessageType::image_order_done;
  std::uint64_t order_id = 0;
  bool ok = false;
  std::string error;  // one line, naming the node and file

  template <class Archive>
  void serialize(Archive& ar) {
    ar(order_id, ok, error);
  }
};

// Several of the above in one message: an epoch's orders to one node (coordinator -> agent), and
// the answers an agent has at one turn of its loop (agent -> coordinator), so that the front end
// handles messages per node, not per image. A batch stays well under the 1 MiB message cap.
struct ImageOrders {
  static constexpr MessageType kType = MessageType::image_orders;
  static constexpr std::size_t kMaxOrders = 1024;
  std::vector<ImageOrder> orders;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(orders);
  }
};

struct ImageOrdersDone {
  static constexpr MessageType kType = MessageType::image_orders_done;
  static constexpr std::size_t kMaxAnswers = 1024;
  std::vector<ImageOrderDone> done;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(done);
  }
};

// Coordinator -> every agent after an epoch ends: the epochs still worth keeping; an agent
// removes its node's directories of every other epoch of the job.
struct KeepEpochs {
  static constexpr MessageType kType = MessageType::keep_epochs;
  std::vector<std::uint64_t> epochs;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(epochs);
  }
};

// --- Ranks relayed by their node's agent (runtime/agent/rank_relay.hpp) ---
// A rank whose node's agent listens on the node-local relay socket (protocol/relay_socket.hpp)
// talks to the coordinator through it: the agent forwards its ranks' messages in batches and the
// coordinator sends a message meant for several of them once, so the front end handles a message
// per node and round instead of one per rank. The payloads are the ranks' own encoded messages,
// unchanged (registration with the job secret included): the coordinator checks them as it checks
// a direct rank's.

// One rank's message inside a batch; `from` is the agent's number for that rank's connection.
struct RelayedLetter {
  std::uint32_t from = 0;
  std::string bytes;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(from, bytes);
  }
};

// Agent -> coordinator: messages of the node's ranks, in the order they came.
struct RelayedUp {
  static constexpr MessageType kType = MessageType::relayed_up;
  // A batch stays well under the control plane's 1 MiB message cap.
  static constexpr std::size_t kMaxBytes = 512 * 1024;
  std::vector<RelayedLetter> letters;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(letters);
  }
};

// Coordinator -> agent: `bytes` (one encoded message) for each of the agent's rank connections
// named in `to`.
struct RelayedDown {
  static constexpr MessageType kType = MessageType::relayed_down;
  std::vector<std::uint32_t> to;
  std::string bytes;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(to, bytes);
  }
};

// Coordinator -> every agent when the job ends: the agent ends too (agents that joined on their
// own have no other way to know).
struct AgentBye {
  static constexpr MessageType kType = MessageType::agent_bye;

  template <class Archive>
  void serialize(Archive&) {}
};

}  // namespace yadokari::protocol
