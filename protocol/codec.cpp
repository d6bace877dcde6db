#include "protocol/codec.hpp"

#include <algorithm>
#include <array>
#include <cereal/archives/portable_binary.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <sstream>
#include <utility>

// Length prefixes come from peers. cereal would resize a string to whatever a forged prefix
// claims before finding out the bytes are not there; no string of ours comes near the cap, so
// refuse larger claims up front. (A non-template overload in the archive's namespace is
// preferred over cereal's generic one.)
namespace cereal {
namespace {
constexpr std::uint64_t kMaxTextBytes = 1 << 20;
}  // namespace

void load(PortableBinaryInputArchive& archive, std::string& text) {
  size_type size = 0;
  archive(make_size_tag(size));
  if (size > kMaxTextBytes)
    throw yadokari::protocol::ProtocolError("string of " + std::to_string(size) + " bytes in a control message");
  text.resize(static_cast<std::size_t>(size));
  archive(binary_data(text.data(), static_cast<std::size_t>(size)));
}

// Element counts come from peers too, and cereal resizes a vector to the count before reading
// the elements: a count of 2^32 made it allocate and zero 32 GiB for a 100-byte message (found
// by tests/fuzz/protocol_decode.cpp). Growing the vector as elements arrive bounds the memory by
// the bytes actually received (every element takes at least one), and the stream runs out long
// before a forged count does. Same wire format: portable binary stores an arithmetic vector as
// its elements one after the other.
template <class T, class A>
void load(PortableBinaryInputArchive& archive, std::vector<T, A>& items) {
  size_type size = 0;
  archive(make_size_tag(size));
  items.clear();
  items.reserve(static_cast<std::size_t>(std::min<size_type>(size, 1024)));
  for (size_type i = 0; i < size; ++i) {
    T item{};
    archive(item);
    items.push_back(std::move(item));
  }
}

// cereal copies a bool's byte as it is; any value but 0 or 1 would be an invalid bool (undefined
// behaviour when read, flagged by the fuzz build's UBSan).
void load(PortableBinaryInputArchive& archive, bool& flag) {
  std::uint8_t byte = 0;
  archive(byte);
  if (byte > 1)
    throw yadokari::protocol::ProtocolError("boolean of value " + std::to_string(byte) + " in a control message");
  flag = byte == 1;
}
}  // namespace cereal

namespace yadokari::protocol {
namespace {

constexpr std::size_t kHeaderSize = 6;

// Two message structs sharing a type value would make decoding ambiguous.
template <std::size_t... I>
constexpr bool types_are_unique(std::index_sequence<I...>) {
  constexpr std::array<MessageType, sizeof...(I)> types{std::variant_alternative_t<I, Message>::kType...};
  for (std::size_t a = 0; a < types.size(); ++a)
    for (std::size_t b = a + 1; b < types.size(); ++b)
      if (types[a] == types[b]) return false;
  return true;
}
static_assert(types_are_unique(std::make_index_sequence<std::variant_size_v<Message>>{}),
              "two control messages share a MessageType");

void put_u16(std::string& out, std::uint16_t value) {
  out.push_back(static_cast<char>(value & 0xff));
  out.push_back(static_cast<char>(value >> 8));
}

std::uint16_t get_u16(std::string_view bytes, std::size_t at) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[at]) |
                                    (static_cast<unsigned char>(bytes[at + 1]) << 8));
}

template <std::size_t I = 0>
constexpr bool is_known_type(std::uint16_t type) {
  if constexpr (I == std::variant_size_v<Message>) {
    return false;
  } else {
    return static_cast<std::uint16_t>(std::variant_alternative_t<I, Message>::kType) == type ||
           is_known_type<I + 1>(type);
  }
}

// `type` is one of Message's (decode_header checked).
template <std::size_t I = 0>
Message load_payload(MessageType type, cereal::PortableBinaryInputArchive& archive) {
  if constexpr (I == std::variant_size_v<Message>) {
    throw ProtocolError("unknown control message type");
  } else {
    using T = std::variant_alternative_t<I, Message>;
    if (T::kType != type) return load_payload<I + 1>(type, archive);
    T message;
    archive(message);
    return message;
  }
}

// Strings a peer sends end up in the front end's log lines and in status tables: a newline or
// an escape sequence could forge a log line ("yadokari: epoch 9 committed") or drive the reader's
// terminal, and a megabyte hostname would flood the log. Names (hosts, nodes, job ids) are short
// printable ASCII words; texts (paths) are one line of bounded length.
constexpr std::size_t kMaxNameBytes = 255;
constexpr std::size_t kMaxLineBytes = 4096;

void check_name(const std::string& value, const char* field) {
  if (value.size() > kMaxNameBytes) throw ProtocolError(std::string(field) + " is longer than 255 bytes");
  for (const unsigned char c : value)
    if (c <= 0x20 || c >= 0x7f) throw ProtocolError(std::string(field) + " is not a printable name");
}

void check_line(const std::string& value, const char* field) {
  if (value.size() > kMaxLineBytes) throw ProtocolError(std::string(field) + " is longer than 4096 bytes");
  for (const unsigned char c : value)
    if (c < 0x20 || c == 0x7f) throw ProtocolError(std::string(field) + " contains a control character");
}

// A rank's error may name several problems, one per line ('\n'-separated: a refused checkpoint,
// checkpoint/memory/README.md). The front end prints each with its own "checkpoint epoch E failed
// on rank R: " prefix, so a line cannot pass for another kind of log line.
constexpr std::size_t kMaxLinesBytes = 16384;

void check_lines(const std::string& value, const char* field) {
  if (value.size() > kMaxLinesBytes) throw ProtocolError(std::string(field) + " is longer than 16384 bytes");
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t end = std::min(value.find('\n', start), value.size());
    check_line(value.substr(start, end - start), field);
    start = end + 1;
  }
}

void check_strings(const RegisterRank& m) {
  check_name(m.job_id, "job_id");
  check_name(m.hostname, "hostname");
  check_name(m.flavour, "flavour");
}
void check_strings(const RankStatus& m) { check_name(m.hostname, "hostname"); }
void check_strings(const ImageWritten& m) {
  check_lines(m.error, "error");
  check_line(m.path, "path");
  check_name(m.hostname, "hostname");
}
void check_strings(const AgentHello& m) {
  check_name(m.job_id, "job_id");
  check_name(m.node, "node");
  check_name(m.hostname, "hostname");
}
template <class T>
void check_strings(const T&) {}

}  // namespace

std::string_view message_type_name(MessageType type) {
  switch (type) {
    case MessageType::register_rank:
      return "RegisterRank";
    case MessageType::register_ack:
      return "RegisterAck";
    case MessageType::query_status:
      return "QueryStatus";
    case MessageType::rank_status:
      return "RankStatus";
    case MessageType::status_request:
      return "StatusRequest";
    case MessageType::status_report:
      return "StatusReport";
    case MessageType::error_reply:
      return "ErrorReply";
    case MessageType::checkpoint_prepare:
      return "CheckpointPrepare";
    case MessageType::cut_report:
      return "CutReport";
    case MessageType::cut_targets:
      return "CutTargets";
    case MessageType::cut_go:
      return "CutGo";
    case MessageType::image_written:
      return "ImageWritten";
    case MessageType::checkpoint_resume:
      return "CheckpointResume";
    case MessageType::checkpoint_ask:
      return "CheckpointAsk";
    case MessageType::checkpoint_request:
      return "CheckpointRequest";
    case MessageType::checkpoint_reply:
      return "CheckpointReply";
    case MessageType::agent_hello:
      return "AgentHello";
    case MessageType::agent_ack:
      return "AgentAck";
    case MessageType::heartbeat:
      return "Heartbeat";
    case MessageType::stop_processes:
      return "StopProcesses";
    case MessageType::rank_restored:
      return "RankRestored";
    case MessageType::rebalance_request:
      return "RebalanceRequest";
    case MessageType::rebalance_reply:
      return "RebalanceReply";
    case MessageType::image_order:
      return "ImageOrder";
    case MessageType::image_chunk:
      return "ImageChunk";
    case MessageType::image_order_done:
      return "ImageOrderDone";
    case MessageType::keep_epochs:
      return "KeepEpochs";
    case MessageType::agent_bye:
      return "AgentBye";
    case MessageType::image_captured:
      return "ImageCaptured";
    case MessageType::checkpoint_release:
      return "CheckpointRelease";
    case MessageType::migrate_request:
      return "MigrateRequest";
    case MessageType::relayed_up:
      return "RelayedUp";
    case MessageType::relayed_down:
      return "RelayedDown";
    case MessageType::image_orders:
      return "ImageOrders";
    case MessageType::image_orders_done:
      return "ImageOrdersDone";
    case MessageType::swap_library:
      return "SwapLibrary";
  }
  return "unknown";
}

MessageType type_of(const Message& message) {
  return std::visit([](const auto& m) { return std::decay_t<decltype(m)>::kType; }, message);
}

std::string encode(const Message& message) {
  std::string header;
  put_u16(header, kProtocolMagic);
  put_u16(header, kProtocolVersion);
  put_u16(header, static_cast<std::uint16_t>(type_of(message)));
  std::ostringstream out(std::move(header), std::ios::binary | std::ios::ate);
  {
    cereal::PortableBinaryOutputArchive archive(out);
    std::visit([&](const auto& m) { archive(m); }, message);
  }
  return std::move(out).str();
}

MessageType decode_header(std::string_view bytes) {
  if (bytes.size() < kHeaderSize)
    throw ProtocolError("control message too short (" + std::to_string(bytes.size()) + " bytes)");
  if (get_u16(bytes, 0) != kProtocolMagic) throw ProtocolError("not a yadokari control message");
  const std::uint16_t version = get_u16(bytes, 2);
  if (version != kProtocolVersion)
    throw ProtocolError("control message has protocol version " + std::to_string(version) +
                        ", this build speaks version " + std::to_string(kProtocolVersion));
  const std::uint16_t type = get_u16(bytes, 4);
  if (!is_known_type<>(type)) throw ProtocolError("unknown control message type " + std::to_string(type));
  return static_cast<MessageType>(type);
}

Message decode(std::string_view bytes) {
  const MessageType type = decode_header(bytes);
  const std::string name(message_type_name(type));
  std::istringstream in(std::string(bytes.substr(kHeaderSize)), std::ios::binary);
  Message message;
  try {
    cereal::PortableBinaryInputArchive archive(in);
    message = load_payload(type, archive);
  } catch (const std::exception& e) {
    // cereal::Exception on truncation, ours on absurd lengths, bad_alloc on absurd counts.
    throw ProtocolError("malformed control message " + name + ": " + e.what());
  }
  if (in.peek() != std::char_traits<char>::eof()) throw ProtocolError("trailing bytes after control message " + name);
  try {
    std::visit([](const auto& m) { check_strings(m); }, message);
  } catch (const ProtocolError& e) {
    throw ProtocolError("malformed control message " + name + ": " + e.what());
  }
  return message;
}

}  // namespace yadokari::protocol
