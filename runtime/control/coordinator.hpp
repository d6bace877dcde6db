#pragma once
// The front end's side of the control plane. Ranks connect to a ROUTER (control endpoint) and
// register with the job id and secret; CLI clients ask a REP socket (status endpoint) for a
// StatusReport, which the coordinator assembles by querying every registered rank, or for a
// checkpoint (CheckpointRequest), answered when the epoch ends. Checkpoint epochs are run by a
// CheckpointOrchestrator; the coordinator only carries its messages (coordinator_checkpoint.cpp).
#include <chrono>
#include <cstdint>
#include <functional>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/control/checkpoint_orchestrator.hpp"
#include "protocol/codec.hpp"
#include "runtime/membership/heartbeat_tracker.hpp"
#include "common/error.hpp"

namespace yadokari::control {

// What the coordinator calls a peer whose address ZeroMQ cannot tell.
inline constexpr std::string_view kUnknownPeer = "unknown peer";

struct CoordinatorConfig {
  std::string job_id;
  std::string secret;
  std::string app;
  std::string flavour;
  std::int32_t world_size = 0;
  // Address both sockets bind to; ranks and CLI clients must be able to reach it.
  std::string bind_host = "127.0.0.1";
  // Port of the control endpoint (ranks, node agents); 0: any free port. The status endpoint
  // always takes a free one (the CLI finds it in the job registry).
  int control_port = 0;
  // How long a CLI status request waits for the ranks' answers.
  std::chrono::milliseconds status_query_timeout{2000};
  // One line per event worth telling the user (refused registrations). Default: stderr.
  std::function<void(const std::string&)> log;

  // Checkpointing; absent = off (a CheckpointRequest is answered "checkpointing is off").
  struct Checkpointing {
    std::filesystem::path dir;  // absolute
    unsigned keep = 2;
    std::int32_t compression = 0;
    double interval_seconds = 0.0;  // 0: only on request (CLI or the application)
    // Node-local image storage with replication to a partner node (OrchestratorConfig::node_dir);
    // needs node agents. Empty: images in `dir`.
    std::filesystem::path node_dir{};
  };
  std::optional<Checkpointing> checkpoint;
  // Called when an epoch ends, after the ranks were told to resume (e.g. --stop-after-epoch).
  std::function<void(const EpochEnd&)> on_epoch_end;
  // Whether the job ends as soon as this epoch commits (OrchestratorConfig::job_ends_at_commit).
  std::function<bool(std::uint64_t epoch)> job_ends_at_commit;
  // How long a `yadokari checkpoint` waits for its epoch before it is answered with a failure.
  std::chrono::milliseconds checkpoint_request_timeout{120000};
  // How long after CheckpointPrepare every rank must have reported once (CheckpointOrchestrator::
  // abandon_if_unreported).
  std::chrono::milliseconds first_report_timeout{10000};
  // How long a cut in which every rank waits for the others may go without a report before it is
  // abandoned (CheckpointOrchestrator::abandon_if_stalled).
  std::chrono::milliseconds cut_stall_timeout{10000};

  // Node agents (coordinator_membership.cpp); absent = no agents are accepted. Each expected
  // node's agent says hello with the job id and secret, then sends heartbeats.
  struct Membership {
    membership::HeartbeatPolicy heartbeat;
    std::map<std::string, std::int32_t> slots;  // expected node id -> slots
  };
  std::optional<Membership> membership;
  // `yadokari rebalance`: returns the answer's message, and whether the rebalance was accepted.
  // Absent: refused ("this job cannot be rebalanced ...").
  std::function<protocol::RebalanceReply()> on_rebalance;
  // `yadokari migrate`: the same for moving named ranks (the request is already authenticated).
  // Absent: refused as a rebalance is.
  std::function<protocol::RebalanceReply(const protocol::MigrateRequest&)> on_migrate;
};

// How far the current incarnation (launch) got: the restart timeline's launch/MPI_Init/restore.
struct IncarnationProgress {
  std::size_t registered = 0;
  std::chrono::steady_clock::time_point last_registered{};
  double max_init_seconds = 0.0;
  std::size_t restored = 0;
  std::chrono::steady_clock::time_point last_restored{};
  double max_restore_seconds = 0.0;
};

// The coordinator cannot start: "cannot listen on 127.0.0.1:5000 for ranks and node agents:
// Address already in use".
class CoordinatorError : public yadokari::Error {
 public:
  using yadokari::Error::Error;
};

class Coordinator {
 public:
  explicit Coordinator(CoordinatorConfig config);
  ~Coordinator();
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  // Actual endpoints (ephemeral ports resolved), e.g. "tcp://127.0.0.1:40123".
  const std::string& control_endpoint() const;
  const std::string& status_endpoint() const;

  // What every client of this job needs (protocol/credential.hpp): the job secret and this
  // coordinator's public CURVE key, made when it started. Its links are encrypted with it.
  const std::string& credential() const;

  // Serves registrations and CLI status requests for up to `timeout`.
  void poll(std::chrono::milliseconds timeout);

  // Asks every registered rank for its status and waits up to `timeout` for the answers.
  protocol::StatusReport query_all(std::chrono::milliseconds timeout);

  std::vector<std::int32_t> registered_ranks() const;
  // How many of them reach us through their node's agent (runtime/agent/rank_relay.hpp), and how
  // many batches of their messages the agents sent so far.
  std::size_t relayed_ranks() const;
  std::uint64_t relayed_batches() const { return relayed_batches_; }
  // What each registered rank said about itself (pid, host), sorted by logical rank.
  std::vector<protocol::RegisterRank> registrations() const;

  // Asks for a checkpoint epoch: it starts once every rank is registered; while one is in
  // progress the request is merged into it. Ignored when checkpointing is off.
  void request_checkpoint();
  bool checkpoint_in_progress() const;
  std::uint64_t last_committed_epoch() const { return last_committed_epoch_; }
  // Traffic between the ranks up to the last committed epoch (the scheduler's input at a restart).
  const TrafficCounts& last_committed_traffic() const { return last_committed_traffic_; }
  // Compute time per rank in the last committed epoch that measured any, and the hosts it was
  // measured on (an earlier incarnation's until this one commits: hosts tell them apart).
  const ComputeTimes& last_committed_compute() const { return last_committed_compute_; }

  // A new launch of the same job (automatic restart): forgets the ranks and any epoch in
  // progress (its images are never committed); agents and membership stay.
  void begin_incarnation();
  const IncarnationProgress& progress() const { return progress_; }

  // --- node agents (coordinator_membership.cpp) ---
  // Nodes whose agent said hello, and their state.
  std::vector<protocol::NodeStatus> nodes() const;
  // Lost-node verdicts not yet taken (each is reported once).
  std::vector<membership::NodeEvent> take_lost_nodes();
  // Heartbeats heard so far per node, and the nodes neither lost nor heard from `beats` times since
  // that mark (membership::HeartbeatTracker::unsettled_since); empty without agents.
  membership::BeatCounts heartbeat_mark() const;
  std::vector<std::string> nodes_unsettled_since(const membership::BeatCounts& mark, std::uint64_t beats) const;
  // A live move (docs/flows/migrate.md, "Live moves"): every registered rank is held at the commit
  // of `epoch`; the `kept` ones swap their MPI library and wait in `dir` for the next launch, the
  // others finalize theirs (SwapLibrary with `leave`).
  void swap_libraries(const std::set<std::int32_t>& kept, std::uint64_t epoch, const std::string& dir);
  // Asks the node's agent to SIGKILL these processes; false if it has no agent.
  bool stop_processes(const std::string& node, const std::vector<std::int64_t>& pids);
  // A node that joined while the job runs: its agent will be accepted.
  void expect_node(const std::string& node, std::int32_t slots);
  bool expects_node(const std::string& node) const;
  // Hostname an agent reported for its node ("" if none).
  std::string agent_hostname(const std::string& node) const;

  // --- node-local images (coordinator_images.cpp) ---
  // Sends `order` (its order_id is assigned here) to `node`'s agent and returns the id; the
  // answer is picked up with take_image_order_result. An order to a node without an agent, or
  // whose node is lost before it is answered, fails with the reason.
  std::uint64_t order_image(const std::string& node, protocol::ImageOrder order);
  // The same for several orders to one node, sent in one message (ImageOrders); ids in order.
  std::vector<std::uint64_t> order_images(const std::string& node, std::vector<protocol::ImageOrder> orders);
  // The answer to an order, once it came (each is returned once).
  std::optional<protocol::ImageOrderDone> take_image_order_result(std::uint64_t order_id);
  // Image chunks that came through this coordinator (copies to agents without an image port).
  std::uint64_t image_chunks_passed_on() const { return image_chunks_passed_on_; }
  // The node whose agent runs on `hostname` ("" if none).
  std::string node_of_host(const std::string& hostname) const;

  // Fills the parts of a status report the coordinator does not own (restart timeline...).
  void set_status_extras(std::function<void(protocol::StatusReport&)> extras) { status_extras_ = std::move(extras); }

  struct Sockets;

 private:
  struct RankEntry {
    std::string routing_id;
    protocol::RegisterRank registration;
  };

  void serve_rank_message(std::string routing_id, std::string peer, std::string_view bytes,
                          std::map<std::int32_t, protocol::RankStatus>* answers, std::uint64_t query_id);
  void serve_registration(const std::string& routing_id, const std::string& peer,
                          const protocol::RegisterRank& registration);
  void serve_status_request();
  void receive_rank_messages(std::map<std::int32_t, protocol::RankStatus>* answers, std::uint64_t query_id);
  bool from_registered(const std::string& routing_id, std::int32_t logical_rank) const;

  // coordinator_checkpoint.cpp
  void serve_checkpoint_message(const protocol::Message& message);
  void serve_checkpoint_request(const protocol::CheckpointRequest& request);
  void run_checkpoint_timers();
  void apply(OrchestratorStep step);
  void answer_checkpoint_request(const protocol::CheckpointReply& reply);  // the pending one, if any
  void answer_checkpoint_request_now(const protocol::CheckpointReply& reply);
  // coordinator_relay.cpp
  void serve_relayed(const std::string& agent_route, const std::string& peer, std::string_view bytes,
                     std::map<std::int32_t, protocol::RankStatus>* answers, std::uint64_t query_id);
  static bool is_relayed_route(const std::string& route);
  // One rank's connection, direct or through its node's agent.
  void send_to_route(const std::string& route, const std::string& bytes);
  // Every registered rank; once per agent for the ranks it relays.
  void send_to_ranks(const protocol::Message& message);
  // coordinator_membership.cpp
  void serve_agent_message(const std::string& routing_id, const std::string& peer, const protocol::Message& message);
  // Any message on an agent's connection shows its nodes alive; `late` is a heartbeat's own report.
  void heard_from_agent(const std::string& routing_id, std::chrono::milliseconds late = {});
  void run_membership_timers();
  void note_restored(const protocol::RankRestored& restored);
  // coordinator_images.cpp
  bool from_agent(const std::string& routing_id) const;
  void serve_image_message(const protocol::Message& message);
  void run_image_order_timers();
  void fail_image_orders_of(const std::string& node);
  void finish_image_order(const protocol::ImageOrderDone& done);
  void replicate(const std::vector<ImageToReplicate>& images);
  void send_keep_epochs();
  void send_to_agent(const std::string& node, const protocol::Message& message);
  // now + seconds; never, for 0
  static std::chrono::steady_clock::time_point interval_deadline(double seconds);

  struct PendingRequest {
    std::chrono::steady_clock::time_point deadline;
    std::uint64_t after_epoch = 0;  // answered by the end of a later epoch than this one
  };

  CoordinatorConfig config_;
  std::unique_ptr<Sockets> sockets_;
  std::string control_endpoint_;
  std::string status_endpoint_;
  std::string credential_;
  std::map<std::int32_t, RankEntry> ranks_;
  // The connections ranks_ registered on: every checkpoint message is checked against them, so
  // the check must not cost a pass over every rank (bench/scale/README.md).
  std::set<std::string> rank_routes_;
  std::uint64_t last_query_id_ = 0;
  std::uint64_t relayed_batches_ = 0;
  // send_to_ranks' recipients, grouped by agent; reset whenever ranks_ changes.
  struct BroadcastPlan {
    std::vector<std::string> direct;                            // routing ids
    std::map<std::string, std::vector<std::uint32_t>> relayed;  // agent route -> its numbers
  };
  std::optional<BroadcastPlan> broadcast_plan_;
  std::chrono::steady_clock::time_point membership_checked_{};

  std::unique_ptr<CheckpointOrchestrator> orchestrator_;  // null: checkpointing is off
  bool checkpoint_wanted_ = false;
  std::chrono::steady_clock::time_point next_interval_checkpoint_;
  bool interval_armed_ = false;
  std::chrono::steady_clock::time_point epoch_started_;
  std::chrono::steady_clock::time_point last_cut_report_;  // of the epoch in progress (its start if none)
  // A CheckpointRequest waiting for its epoch. The REP socket takes no new request until it is
  // answered (exactly one reply per request), so status requests wait meanwhile.
  std::optional<PendingRequest> pending_request_;
  bool told_checkpointing_off_ = false;
  std::uint64_t told_waiting_for_epoch_ = 0;  // backpressure is logged once per epoch
  std::uint64_t last_committed_epoch_ = 0;
  TrafficCounts last_committed_traffic_;
  ComputeTimes last_committed_compute_;
  IncarnationProgress progress_;
  std::function<void(protocol::StatusReport&)> status_extras_;

  struct AgentEntry {
    std::string routing_id;
    protocol::AgentHello hello;
    std::string image_endpoint;  // where other agents send it copies; empty: through us
  };
  std::map<std::string, AgentEntry> agents_;  // by node id
  // The nodes each agent connection said hello for (a heartbeat is one lookup, not a pass over
  // every agent).
  std::map<std::string, std::set<std::string>> nodes_of_agent_route_;

  struct PendingOrder {
    std::chrono::steady_clock::time_point deadline;
    std::string node;     // the order's holder
    std::string to_node;  // copy target ("" for verify)
    // Set for the copies an epoch waits for (replicate); the rest are the restart's.
    std::optional<ReplicaResult> replica;
    std::uint64_t epoch = 0;
  };
  std::map<std::uint64_t, PendingOrder> orders_;
  std::map<std::uint64_t, protocol::ImageOrderDone> order_results_;
  std::uint64_t last_order_id_ = 0;
  std::uint64_t image_chunks_passed_on_ = 0;
  std::optional<membership::HeartbeatTracker> tracker_;
  std::vector<membership::NodeEvent> lost_;
};

}  // namespace yadokari::control
