#pragma once
// The conversation between a rank (the shim, pmpi-layer/src/link/) and the coordinator (the front
// end, runtime/control/): registration, status, the checkpoint cut, restore.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/message_type.hpp"

namespace yadokari::protocol {

// Rank -> coordinator, first message on a rank's connection.
struct RegisterRank {
  static constexpr MessageType kType = MessageType::register_rank;
  std::string job_id;
  std::string secret;
  std::int32_t logical_rank = -1;
  std::int32_t world_size = 0;
  std::int64_t pid = 0;
  std::string hostname;
  std::string flavour;        // "openmpi" or "mpich"
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
  // An image being written in the background: its epoch (0: none) and the bytes written so far.
  std::uint64_t writing_epoch = 0;
  std::uint64_t writing_bytes = 0;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(query_id, logical_rank, pid, hostname, mpi_calls_total, messages_sent, bytes_sent, messages_received,
       bytes_received, current_call, seconds_since_init, compute_seconds, writing_epoch, writing_bytes);
  }
};

// ---------------------------------------------------------------------------------------------
// Checkpoint protocol (docs/flows/checkpoint.md). One epoch at a time:
//   coordinator -> every rank   CheckpointPrepare
//   rank -> coordinator         CutReport, whenever the rank stops (parks) or blocks at a
//                               collective's entry, and once from the control thread at once
//   coordinator -> every rank   CutTargets, whenever the per-communicator targets change
//   coordinator -> every rank   CutGo, when every rank is parked exactly at the targets
//   rank -> coordinator         ImageCaptured, when a forked writer took the rank's snapshot and
//                               writes the image in the background (the rank waits for release)
//   coordinator -> every rank   CheckpointRelease, once every rank's state is captured: run on
//                               (or stay, when the job ends at this epoch's commit)
//   rank -> coordinator         ImageWritten (after drain + image write, in the background or not)
//   coordinator -> every rank   CheckpointResume (after the MANIFEST, or when the epoch failed)
// A rank reaching MPI_Finalize during a cut reports `finalizing`; the coordinator then abandons
// the epoch (CheckpointResume with committed = false).
// A live move, after a commit that held the ranks (run_on false):
//   coordinator -> every rank   SwapLibrary; a kept rank's link closes, and it registers again
//                               (RegisterRank, then RankRestored) from the next launch; a moved
//                               rank (`leave`) finalizes the library and waits to be stopped

// Collectives a rank has entered on one communicator. `key` names the communicator the same way
// on every member (see pmpi-layer/src/cut/cut_keys.hpp); the world is key 1.
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
  std::uint64_t round = 0;        // the CutTargets round this report was made against (0: none yet)
  std::uint64_t gate_key = 0;     // at_gate / inside: the communicator
  std::uint64_t serial = 0;       // per rank, increasing: a later report replaces an earlier one
  std::vector<CommCount> counts;  // every communicator the rank belongs to (world included)

  template <class Archive>
  void serialize(Archive& ar) {
    ar(epoch, logical_rank, state, round, gate_key, serial, counts);
  }
};

struct CutTargets {
  static constexpr MessageType kType = MessageType::cut_targets;
  std::uint64_t epoch = 0;
  std::uint64_t round = 0;         // 1, 2, ...
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

// One partner in a rank's traffic row: what the rank has sent to logical rank `to` since the job
// started (the channel table's counters, restored with the rank).
struct TrafficPartner {
  std::int32_t to = 0;
  std::uint64_t bytes = 0;
  std::uint64_t messages = 0;
  bool operator==(const TrafficPartner&) const = default;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(to, bytes, messages);
  }
};

// A traffic row names at most this many partners, the heaviest by bytes: the front end and the
// scheduler then hold O(ranks) counters, where full rows were W x W (4 GiB at 16,384 ranks).
inline constexpr std::size_t kTrafficPartners = 16;

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
  // What this rank has sent since the job started to its heaviest partners (at most
  // kTrafficPartners, ascending by `to`; none = not measured): the scheduler's traffic for the
  // `comm` and `auto` policies.
  std::vector<TrafficPartner> traffic;
  // Seconds this process has computed (outside MPI) since its MPI_Init, and the node it runs on:
  // the scheduler's compute times for the `speed` and `auto` policies. Never restored with the
  // rank, so a restarted process counts afresh. < 0 = not measured.
  double compute_seconds = -1.0;
  std::string hostname;
  // How long the application stood still for this epoch: from the cut's GO to running again. With
  // a background image that ends at CheckpointRelease, and write_seconds runs on after it.
  double pause_seconds = 0.0;
  // The image is an increment of this epoch's image of the same rank; 0: a full image.
  std::uint64_t parent_epoch = 0;
  // The image's layout: "dmtcp" (DMTCP's layout, docs/formats/dmtcp-image.md), empty: yadokari's own.
  std::string layout;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(epoch, logical_rank, ok, error, path, size, xxh64, drain_seconds, write_seconds, drained_messages, traffic,
       compute_seconds, hostname, pause_seconds, parent_epoch, layout);
  }
};

// The rank's state is captured (a forked writer holds a copy-on-write snapshot of it); the image
// follows as ImageWritten. `capture_seconds`: from GO to the snapshot.
struct ImageCaptured {
  static constexpr MessageType kType = MessageType::image_captured;
  std::uint64_t epoch = 0;
  std::int32_t logical_rank = -1;
  double capture_seconds = 0.0;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(epoch, logical_rank, capture_seconds);
  }
};

// Every rank's state of `epoch` is captured: the ranks run on while their images are written.
// The epoch's CheckpointResume still follows (commit or failure).
// `run_on` false: the job ends as soon as this epoch commits (--stop-after-epoch, a checkpoint on
// signal, a rebalance). The rank then only reports its image and stays where it is, so that
// nothing it would compute or print after its checkpoint is done a second time by the restart;
// no CheckpointResume follows a commit then, only a failed epoch's lets it run on.
struct CheckpointRelease {
  static constexpr MessageType kType = MessageType::checkpoint_release;
  std::uint64_t epoch = 0;
  bool run_on = true;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(epoch, run_on);
  }
};

// A live move (docs/flows/migrate.md, "Live moves"): `epoch` committed with the job held at its
// cut; each kept rank swaps its MPI library, waiting at DIR/rank-<L>.sock for the next launch.
// `leave`: a moved rank, which only finalizes the library (MPI_Finalize is collective in both
// MPIs) and waits to be stopped.
struct SwapLibrary {
  static constexpr MessageType kType = MessageType::swap_library;
  std::uint64_t epoch = 0;
  std::string dir;
  bool leave = false;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(epoch, dir, leave);
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

// Rank -> coordinator, once the memory restore of a restart is done (the timeline's "restore"),
// or when the rank refuses to restore: then `refused` says why in one line, and the front end
// prints it. The rank aborts right after; the launcher (Hydra) may drop what the rank printed
// itself while it tears the job down, so the reason travels here instead.
struct RankRestored {
  static constexpr MessageType kType = MessageType::rank_restored;
  std::int32_t logical_rank = -1;
  double restore_seconds = 0.0;
  std::string refused;  // empty: restored

  template <class Archive>
  void serialize(Archive& ar) {
    ar(logical_rank, restore_seconds, refused);
  }
};

}  // namespace yadokari::protocol
