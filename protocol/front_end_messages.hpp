#pragma once
// The conversation between a CLI client (`yadokari status`, `checkpoint`, `rebalance`) and a
// running job's front end, on its status endpoint. Requests carry the job secret read from the
// 0600 job registry file, so only the job's owner is answered.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/message_type.hpp"
#include "protocol/rank_messages.hpp"

namespace yadokari::protocol {

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
  std::string node;  // "n2"
  std::string hostname;
  std::string state;  // "alive", "suspect", "lost"
  double seconds_since_heard = 0.0;
  std::int32_t slots = 0;
  std::vector<std::int32_t> ranks;  // the job's logical ranks registered from this node now
  // A node announced as leaving (docs/flows/migrate.md, "Draining a node"): "" (not leaving),
  // "moving" (ranks of the job still there), "empty" (every rank registered, none there: it may go),
  // or "stuck: <why its ranks cannot move>".
  std::string drain;
  std::uint64_t drain_id = 0;  // the drain `drain` answers (sim::Node::drain_id): an older one's answer is stale

  template <class Archive>
  void serialize(Archive& ar) {
    ar(node, hostname, state, seconds_since_heard, slots, ranks, drain, drain_id);
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
  // Registered ranks that reach the front end through their node's agent (runtime/agent/rank_relay.hpp).
  std::uint32_t relayed_ranks = 0;
  // Image chunks of node-local copies that went through the front end (--node-dir: copies go node to
  // node, so 0 unless an agent has no image port).
  std::uint64_t image_chunks_passed_on = 0;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(job_id, app, flavour, world_size, ranks, ranks_not_answering, nodes, last_committed_epoch, restarts, timeline,
       relayed_ranks, image_chunks_passed_on);
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

// CLI (`yadokari migrate --ranks 2,3 --to n4`) -> front end, on the status endpoint: move these
// ranks to that node, the others staying where they are. Answered at once with a RebalanceReply.
struct MigrateRequest {
  static constexpr MessageType kType = MessageType::migrate_request;
  std::string job_id;
  std::string secret;
  std::vector<std::int32_t> ranks;
  std::string to;     // node id, e.g. "n4"
  bool live = false;  // `--live`: the other ranks keep their processes (docs/flows/migrate.md)

  template <class Archive>
  void serialize(Archive& ar) {
    ar(job_id, secret, ranks, to, live);
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

}  // namespace yadokari::protocol
