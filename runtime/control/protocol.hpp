#pragma once
// Control-plane messages between ranks, the coordinator and CLI clients.
// Wire format: an 6-byte little-endian header {magic, protocol version, message type},
// then the message's fields as a cereal portable-binary archive.
//
// To add a message: give it a MessageType value, a struct with `kType` and `serialize`,
// and append it to `Message`. Nothing else dispatches on types.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace yadokari::control {

inline constexpr std::uint16_t kProtocolMagic = 0x594b;  // "YK"
// Bump whenever any message's fields change; peers of different versions refuse each other.
// 5: ImageWritten carries the rank's compute seconds and node, RankStatus its compute seconds.
inline constexpr std::uint16_t kProtocolVersion = 5;

enum class MessageType : std::uint16_t {
  register_rank = 1,
  register_ack = 2,
  query_status = 3,
  rank_status = 4,
  status_request = 5,
  status_report = 6,
  error_reply = 7,
  checkpoint_prepare = 8,
  cut_report = 9,
  cut_targets = 10,
  cut_go = 11,
  image_written = 12,
  checkpoint_resume = 13,
  checkpoint_ask = 14,
  checkpoint_request = 15,
  checkpoint_reply = 16,
  agent_hello = 17,
  agent_ack = 18,
  heartbeat = 19,
  stop_processes = 20,
  rank_restored = 21,
  rebalance_request = 22,
  rebalance_reply = 23,
  image_order = 24,
  image_chunk = 25,
  image_order_done = 26,
  keep_epochs = 27,
  agent_bye = 28,
};

// Rank -> coordinator, first message on a rank's connection.
struct RegisterRank {
  static constexpr MessageType kType = MessageType::register_rank;
  std::string job_id;
  std::string secret;
  std::int32_t logical_rank = -1;
  std::int32_t world_size = 0;
  std::int64_t pid = 0;
  std::string hostname;
  std::string flavour;  // "openmpi" or "mpich"
  double init_seconds = 0.0;  // spent in the library's MPI_Init (the restart timeline's phase)

  template <class Archive>
  void serialize(Archive& ar) {
    ar(job_id, secret, logical_rank, world_size, pid, hostname, flavour, init_seconds);
  }
};

// Coordinator -> rank, answer to RegisterRank.
struct RegisterAck {
  static constexpr MessageType kType = MessageType::register_ack;
  bool accepted = false;
  std::string reason;  // why it was refused

  template <class Archive>
  void serialize(Archive& ar) {
    ar(accepted, reason);
  }
};

// Coordinator -> rank. The id lets the coordinator drop late answers to an earlier query.
struct QueryStatus {
  static constexpr MessageType kType = MessageType::query_status;
  std::uint64_t query_id = 0;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(query_id);
  }
};

// Rank -> coordinator, answer to QueryStatus; also an element of StatusReport.
struct RankStatus {
  static constexpr MessageType kType = MessageType::rank_status;
  std::uint64_t query_id = 0;  // echoed from QueryStatus
  std::int32_t logical_rank = -1;
  std::int64_t pid = 0;
  std::string hostname;
  std::uint64_t mpi_calls_total = 0;
  std::uint64_t messages_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t messages_received = 0;
  std::uint64_t bytes_received = 0;
  std::string current_call;  // MPI function the rank is inside, empty when in application code
  double seconds_since_init = 0.0;
  double compute_seconds = -1.0;  // outside MPI since this process's MPI_Init; < 0 = not measured

  template <class Archive>
  void serialize(Archive& ar) {
    ar(query_id, logical_rank, pid, hostname, mpi_calls_total, messages_sent, bytes_sent,
       messages_received, bytes_received, current_call, seconds_since_init, compute_seconds);
  }
};

// CLI -> front end (status endpoint). The secret comes from the 0600 job registry file, so
// only the job's owner can read its state.
struct StatusRequest {
  static constexpr MessageType kType = MessageType::status_request;
  std::string job_id;
  std::string secret;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(job_id, secret);
  }
};

// A node as the front end's membership sees it (jobs with node agents: `--sim`).
struct NodeStatus {
  std::string node;      // "n2"
  std::string hostname;
  std::string state;     // "alive", "suspect", "lost"
  double seconds_since_heard = 0.0;
  std::int32_t slots = 0;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(node, hostname, state, seconds_since_heard, slots);
  }
};

// Front end -> CLI.
struct StatusReport {
  static constexpr MessageType kType = MessageType::status_report;
  std::string job_id;
  std::string app;
  std::string flavour;
  std::int32_t world_size = 0;
  std::vector<RankStatus> ranks;                  // sorted by logical rank
  std::vector<std::int32_t> ranks_not_answering;  // unregistered or silent within the timeout
  std::vector<NodeStatus> nodes;                  // empty without node agents
  std::uint64_t last_committed_epoch = 0;         // 0: none yet
  std::uint32_t restarts = 0;                     // automatic restarts so far
  std::vector<std::string> timeline;              // one line per restart (see recovery/)

  template <class Archive>
  void serialize(Archive& ar) {
    ar(job_id, app, flavour, world_size, ranks, ranks_not_answering, nodes, last_committed_epoch,
       restarts, timeline);
  }
};

// Any request that cannot be served (bad secret, undecodable request).
struct ErrorReply {
  static constexpr MessageType kType = MessageType::error_reply;
  std::string reason;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(reason);
  }
};


// ---------------------------------------------------------------------------------------------
// Checkpoint protocol (docs/architecture.md §4). One epoch at a time:
//   coordinator -> every rank   CheckpointPrepare
//   rank -> coordinator         CutReport, whenever the rank stops (parks) or blocks at a
//                               collective's entry, and once from the control thread at once
//   coordinator -> every rank   CutTargets, whenever the per-communicator targets change
//   coordinator -> every rank   CutGo, when every rank is parked exactly at the targets
//   rank -> coordinator         ImageWritten (after drain + image write)
//   coordinator -> every rank   CheckpointResume (after the MANIFEST, or when the epoch failed)
// A rank reaching MPI_Finalize during a cut reports `finalizing`; the coordinator then abandons
// the epoch (CheckpointResume with committed = false).

// Collectives a rank has entered on one communicator. `key` names the communicator the same way
// on every member (see pmpi-layer/src/mpi/cut_keys.hpp); the world is key 1.
struct CommCount {
  std::uint64_t key = 0;
  std::uint64_t entered = 0;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(key, entered);
  }
  bool operator==(const CommCount&) const = default;
};

struct CheckpointPrepare {
  static constexpr MessageType kType = MessageType::checkpoint_prepare;
  std::uint64_t epoch = 0;
  std::string epoch_dir;         // absolute; each rank writes <epoch_dir>/rank-<L>.img
  std::int32_t compression = 0;  // zstd level, 0 = off

  template <class Archive>
  void serialize(Archive& ar) {
    ar(epoch, epoch_dir, compression);
  }
};

enum class CutState : std::uint8_t {
  inside = 0,      // sent by the control thread: the rank is blocked inside a collective (counts
                   // holds only that communicator)
  parked = 1,      // stopped at a call boundary with every count equal to the targets of `round`
  at_gate = 2,     // stopped at the entry of a collective on `gate_key` whose count already equals
                   // its target, while some other count is still below its target
  finalizing = 3,  // reached MPI_Finalize: this epoch cannot be taken
  unreached = 4,   // stopped at a boundary before it knew any targets (round 0)
};

struct CutReport {
  static constexpr MessageType kType = MessageType::cut_report;
  std::uint64_t epoch = 0;
  std::int32_t logical_rank = -1;
  CutState state = CutState::unreached;
  std::uint64_t round = 0;     // the CutTargets round this report was made against (0: none yet)
  std::uint64_t gate_key = 0;  // at_gate / inside: the communicator
  std::uint64_t serial = 0;    // per rank, increasing: a later report replaces an earlier one
  std::vector<CommCount> counts;  // every communicator the rank belongs to (world included)

  template <class Archive>
  void serialize(Archive& ar) {
    ar(epoch, logical_rank, state, round, gate_key, serial, counts);
  }
};

struct CutTargets {
  static constexpr MessageType kType = MessageType::cut_targets;
  std::uint64_t epoch = 0;
  std::uint64_t round = 0;  // 1, 2, ...
  std::vector<CommCount> targets;  // communicators not listed: target = what the rank entered

  template <class Archive>
  void serialize(Archive& ar) {
    ar(epoch, round, targets);
  }
};

struct CutGo {
  static constexpr MessageType kType = MessageType::cut_go;
  std::uint64_t epoch = 0;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(epoch);
  }
};

struct ImageWritten {
  static constexpr MessageType kType = MessageType::image_written;
  std::uint64_t epoch = 0;
  std::int32_t logical_rank = -1;
  bool ok = false;
  std::string error;  // one line, when !ok
  std::string path;
  std::uint64_t size = 0;
  std::uint64_t xxh64 = 0;  // of the whole file, for the MANIFEST
  double drain_seconds = 0.0;
  double write_seconds = 0.0;
  std::uint64_t drained_messages = 0;
  // What this rank has sent to each logical rank since the job started (the channel table's row;
  // restored with the rank): the scheduler's traffic matrix for the `comm` and `auto` policies.
  std::vector<std::uint64_t> bytes_to;
  std::vector<std::uint64_t> messages_to;
  // Seconds this process has computed (outside MPI) since its MPI_Init, and the node it runs on:
  // the scheduler's compute times for the `speed` and `auto` policies. Never restored with the
  // rank, so a restarted process counts afresh. < 0 = not measured.
  double compute_seconds = -1.0;
  std::string hostname;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(epoch, logical_rank, ok, error, path, size, xxh64, drain_seconds, write_seconds, drained_messages, bytes_to,
       messages_to, compute_seconds, hostname);
  }
};

struct CheckpointResume {
  static constexpr MessageType kType = MessageType::checkpoint_resume;
  std::uint64_t epoch = 0;
  bool committed = false;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(epoch, committed);
  }
};

// Rank -> coordinator: the application called yadokari_checkpoint().
struct CheckpointAsk {
  static constexpr MessageType kType = MessageType::checkpoint_ask;
  std::int32_t logical_rank = -1;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(logical_rank);
  }
};

// CLI (`yadokari checkpoint`) -> front end, on the status endpoint.
struct CheckpointRequest {
  static constexpr MessageType kType = MessageType::checkpoint_request;
  std::string job_id;
  std::string secret;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(job_id, secret);
  }
};

struct CheckpointReply {
  static constexpr MessageType kType = MessageType::checkpoint_reply;
  bool ok = false;
  std::uint64_t epoch = 0;
  std::string message;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(ok, epoch, message);
  }
};

// ---------------------------------------------------------------------------------------------
// Node agents (runtime/agent): one per node, on the same ROUTER as the ranks.
//   agent -> coordinator   AgentHello (job id + secret), then Heartbeat every interval
//   coordinator -> agent   AgentAck (refusals carry the reason; the agent exits)
//   coordinator -> agent   StopProcesses: kill these pids on your node (a restart's "stop")

struct AgentHello {
  static constexpr MessageType kType = MessageType::agent_hello;
  std::string job_id;
  std::string secret;
  std::string node;      // the node's id in the cluster ("n2")
  std::string hostname;
  std::int64_t pid = 0;
  // > 0: a node that was not part of the job joins it with this many slots (`yadokari join`).
  std::int32_t join_slots = 0;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(job_id, secret, node, hostname, pid, join_slots);
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

  template <class Archive>
  void serialize(Archive& ar) {
    ar(sequence);
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

// Rank -> coordinator, once the memory restore of a restart is done (the timeline's "restore").
struct RankRestored {
  static constexpr MessageType kType = MessageType::rank_restored;
  std::int32_t logical_rank = -1;
  double restore_seconds = 0.0;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(logical_rank, restore_seconds);
  }
};

// CLI (`yadokari rebalance`) -> front end, on the status endpoint: checkpoint, re-plan on the
// nodes alive now (joined ones included), restart. Answered at once.
struct RebalanceRequest {
  static constexpr MessageType kType = MessageType::rebalance_request;
  std::string job_id;
  std::string secret;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(job_id, secret);
  }
};

struct RebalanceReply {
  static constexpr MessageType kType = MessageType::rebalance_reply;
  bool ok = false;
  std::string message;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(ok, message);
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
  std::uint64_t size = 0;   // the whole file, as the MANIFEST (or ImageWritten) says
  std::uint64_t xxh64 = 0;
  std::string to_node;      // copy only

  template <class Archive>
  void serialize(Archive& ar) {
    ar(order_id, kind, epoch, rank, size, xxh64, to_node);
  }
};

// Agent -> coordinator -> agent of `to_node`, in order; a copy is a sequence of chunks, the last
// one flagged. Chunks stay well under the control plane's 1 MiB message cap.
struct ImageChunk {
  static constexpr MessageType kType = MessageType::image_chunk;
  static constexpr std::size_t kMaxBytes = 256 * 1024;
  std::uint64_t order_id = 0;
  std::uint64_t epoch = 0;
  std::int32_t rank = -1;
  std::uint64_t size = 0;   // expected, from the order: the receiver checks the copy against them
  std::uint64_t xxh64 = 0;
  std::string to_node;
  std::uint64_t offset = 0;
  bool last = false;
  std::string bytes;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(order_id, epoch, rank, size, xxh64, to_node, offset, last, bytes);
  }
};

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

// Coordinator -> every agent when the job ends: the agent ends too (agents that joined on their
// own have no other way to know).
struct AgentBye {
  static constexpr MessageType kType = MessageType::agent_bye;

  template <class Archive>
  void serialize(Archive&) {}
};

using Message = std::variant<RegisterRank, RegisterAck, QueryStatus, RankStatus, StatusRequest,
                             StatusReport, ErrorReply, CheckpointPrepare, CutReport, CutTargets,
                             CutGo, ImageWritten, CheckpointResume, CheckpointAsk,
                             CheckpointRequest, CheckpointReply, AgentHello, AgentAck, Heartbeat,
                             StopProcesses, RankRestored, RebalanceRequest, RebalanceReply,
                             ImageOrder, ImageChunk, ImageOrderDone, KeepEpochs, AgentBye>;

// Thrown for anything that is not a well-formed message of this protocol version.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string_view message_type_name(MessageType type);
MessageType type_of(const Message& message);

std::string encode(const Message& message);
// Checks magic, version and type without reading the payload, so a receiver can refuse a
// message type it does not expect from that peer before decoding it.
MessageType decode_header(std::string_view bytes);
Message decode(std::string_view bytes);

// decode() that also insists on one message type.
template <class T>
T decode_as(std::string_view bytes) {
  Message message = decode(bytes);
  if (auto* wanted = std::get_if<T>(&message)) return std::move(*wanted);
  throw ProtocolError("expected control message " + std::string(message_type_name(T::kType)) +
                      ", got " + std::string(message_type_name(type_of(message))));
}

}  // namespace yadokari::control
