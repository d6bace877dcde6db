#pragma once
// Every control message as one variant, and its encoding. To add a message: give it a
// MessageType value (protocol/message_type.hpp), a struct with `kType` and `serialize` in the
// header of its conversation, and append it to `Message`. Nothing else dispatches on types.
#include <string>
#include <string_view>
#include <variant>

#include "common/error.hpp"
#include "protocol/agent_messages.hpp"
#include "protocol/front_end_messages.hpp"
#include "protocol/message_type.hpp"
#include "protocol/rank_messages.hpp"

namespace yadokari::protocol {

using Message = std::variant<RegisterRank, RegisterAck, QueryStatus, RankStatus, StatusRequest, StatusReport,
                             ErrorReply, CheckpointPrepare, CutReport, CutTargets, CutGo, ImageWritten,
                             CheckpointResume, CheckpointAsk, CheckpointRequest, CheckpointReply, AgentHello, AgentAck,
                             Heartbeat, StopProcesses, RankRestored, RebalanceRequest, RebalanceReply, ImageOrder,
                             ImageChunk, ImageOrderDone, KeepEpochs, AgentBye, ImageCaptured, CheckpointRelease,
                             MigrateRequest, RelayedUp, RelayedDown, ImageOrders, ImageOrdersDone, SwapLibrary>;

// Thrown for anything that is not a well-formed message of this protocol version.
class ProtocolError : public yadokari::Error {
 public:
  using yadokari::Error::Error;
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
  throw ProtocolError("expected control message " + std::string(message_type_name(T::kType)) + ", got " +
                      std::string(message_type_name(type_of(message))));
}

}  // namespace yadokari::protocol
