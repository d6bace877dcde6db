#pragma once
// The control protocol's wire header: magic, version and one number per message type.
// Wire format (protocol/codec.hpp): a 6-byte little-endian header {magic, protocol version,
// message type}, then the message's fields as a cereal portable-binary archive.
#include <cstdint>

namespace yadokari::protocol {

inline constexpr std::uint16_t kProtocolMagic = 0x594b;  // "YK"
// Bump whenever any message's fields change; peers of different versions refuse each other.
// 5: ImageWritten carries the rank's compute seconds and node, RankStatus its compute seconds.
// 6: ImageCaptured and CheckpointRelease (images written in the background), RankStatus says how
//    much of a background image is written.
// 7: CheckpointRelease says whether the ranks run on (not when the job ends at the commit);
//    ImageWritten carries an incremental image's parent epoch; Heartbeat how late it was sent.
// 8: ImageWritten's traffic row is sparse: its heaviest partners only (kTrafficPartners).
// 9: MigrateRequest (`yadokari migrate`); ImageWritten carries the image's layout (DMTCP's or
//    yadokari's own).
// 10: RelayedUp and RelayedDown (a node's ranks reach the coordinator through its agent);
//     StatusReport says how many ranks are relayed.
// 11: RankRestored says why a rank refused to restore (the front end prints it).
// 12: image copies agent to agent (AgentHello's image port, ImageOrder's endpoint, ImageChunk's
//     secret); ImageOrders / ImageOrdersDone (an epoch's orders to a node, and answers, at once).
// 13: NodeStatus carries the job's ranks on the node and its drain state (`yadokari sim drain`).
// 14: MigrateRequest says whether the move is live; SwapLibrary (a live move's kept ranks).

inline constexpr std::uint16_t kProtocolVersion = 14;

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
  image_captured = 29,
  checkpoint_release = 30,
  migrate_request = 31,
  relayed_up = 32,
  relayed_down = 33,
  image_orders = 34,
  image_orders_done = 35,
  swap_library = 36,
};

}  // namespace yadokari::protocol
