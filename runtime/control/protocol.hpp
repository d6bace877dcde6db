#pragma once
// Control-plane messages between ranks, the coordinator and CLI clients.
// Wire format: an 6-byte little-endian header {magic, protocol version, message type},
// then the message's fields as a cereal portable-binary archive.
//
// To add a message: give it a MessageType value, a struct with `kType` and `serialize`,
// and append it to `Message`. Nothing else dispatches on types.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace yadokari::control {

inline constexpr std::uint16_t kProtocolMagic = 0x594b;  // "YK"
// Bump whenever any message's fields change; peers of different versions refuse each other.
inline constexpr std::uint16_t kProtocolVersion = 1;

enum class MessageType : std::uint16_t {
  register_rank = 1,
  register_ack = 2,
  query_status = 3,
  rank_status = 4,
  status_request = 5,
  status_report = 6,
  error_reply = 7,
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

  template <class Archive>
  void serialize(Archive& ar) {
    ar(job_id, secret, logical_rank, world_size, pid, hostname, flavour);
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

  template <class Archive>
  void serialize(Archive& ar) {
    ar(query_id, logical_rank, pid, hostname, mpi_calls_total, messages_sent, bytes_sent,
       messages_received, bytes_received, current_call, seconds_since_init);
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

// Front end -> CLI.
struct StatusReport {
  static constexpr MessageType kType = MessageType::status_report;
  std::string job_id;
  std::string app;
  std::string flavour;
  std::int32_t world_size = 0;
  std::vector<RankStatus> ranks;                  // sorted by logical rank
  std::vector<std::int32_t> ranks_not_answering;  // unregistered or silent within the timeout

  template <class Archive>
  void serialize(Archive& ar) {
    ar(job_id, app, flavour, world_size, ranks, ranks_not_answering);
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

using Message = std::variant<RegisterRank, RegisterAck, QueryStatus, RankStatus, StatusRequest,
                             StatusReport, ErrorReply>;

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
