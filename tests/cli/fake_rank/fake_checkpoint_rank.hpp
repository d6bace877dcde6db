#pragma once
// A rank's side of the checkpoint protocol, faked: fixed collective counts, a tiny image.
// Used by the stand-in shim (so `yadokari run --ckpt-dir` can be tested with real launchers and
// without pmpi-layer) and by in-process tests that drive a Coordinator with clients in threads.
//
// It follows protocol.hpp: on CheckpointPrepare it reports `unreached` (round 0), on every
// CutTargets it reports `parked` at that round, on CutGo it writes <epoch_dir>/rank-<L>.img with
// ImageWriter and answers ImageWritten, and on CheckpointResume it counts the outcome.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "protocol/codec.hpp"
#include "pmpi-layer/src/link/rank_client.hpp"

namespace yadokari::testing {

class FakeCheckpointRank {
 public:
  struct Options {
    std::int32_t rank = 0;
    std::int32_t world_size = 1;
    std::string job_id;
    std::string flavour = "openmpi";
    std::vector<yadokari::protocol::CommCount> counts{{1, 3}};  // collectives entered, per communicator
    bool fail_image = false;                                    // answer ImageWritten{ok = false}
    bool silent = false;  // ignore every checkpoint message, like a rank past MPI_Finalize
    // Blocked inside a collective on the first of `counts` that never completes (a hung library):
    // reports `inside` on the prepare and on every round, never `parked`.
    bool stuck_inside = false;
    // Computing outside MPI for the whole test: reports `unreached` on the prepare (its control
    // thread) and answers no round, since its application thread never reaches an MPI call.
    bool computing = false;
  };

  explicit FakeCheckpointRank(Options options);

  // The Listener for RankControlClient::start_from_env; give it the client right after.
  link::RankControlClient::Listener listener();
  void attach(link::RankControlClient* client) { client_ = client; }

  int committed() const { return committed_; }
  int not_committed() const { return not_committed_; }
  std::vector<std::uint64_t> epochs_written() const;

 private:
  void on_message(const yadokari::protocol::Message& message);
  void report(yadokari::protocol::CutState state, std::uint64_t round);
  void write_image();
  void send(const yadokari::protocol::Message& message);

  Options options_;
  std::atomic<link::RankControlClient*> client_{nullptr};
  // Only the client's thread touches these, except epochs_written_ (read by tests).
  std::uint64_t epoch_ = 0;
  std::string epoch_dir_;
  std::int32_t compression_ = 0;
  std::uint64_t serial_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::uint64_t> epochs_written_;
  std::atomic<int> committed_{0};
  std::atomic<int> not_committed_{0};
};

}  // namespace yadokari::testing
