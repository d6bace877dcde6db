#pragma once
// The rank side of the control plane, embedded in the shim.
// One background thread per rank owns a ZeroMQ DEALER connected to the coordinator: it
// registers the rank and answers status queries with a snapshot taken from the shim's counters.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "protocol/codec.hpp"

namespace yadokari::link {

struct RankIdentity {
  std::int32_t logical_rank = -1;
  std::int32_t world_size = 0;
  std::int64_t pid = 0;       // 0: getpid()
  std::string hostname;       // empty: gethostname()
  std::string flavour;        // empty: $YADOKARI_FLAVOUR
  double init_seconds = 0.0;  // time in the library's MPI_Init
};

class RankControlClient {
 public:
  // snapshot() runs on the client's thread, concurrently with the application: it must only
  // read state that is safe to read from another thread (atomics). The client overwrites the
  // identity fields (logical_rank, pid, hostname) of what it returns.
  using Snapshot = std::function<protocol::RankStatus()>;
  // Messages of the checkpoint protocol from the coordinator (CheckpointPrepare, CutTargets,
  // CutGo, CheckpointRelease, CheckpointResume). Runs on the client's thread; must not call MPI.
  using Listener = std::function<void(const protocol::Message&)>;

  // nullptr when $YADOKARI_CONTROL is unset (no control plane, e.g. a plain mpirun of a
  // relinked app) or when the control plane cannot be set up (a one-line message on stderr).
  // Never throws: the application must run on regardless.
  static std::unique_ptr<RankControlClient> start_from_env(const RankIdentity& id, Snapshot snapshot,
                                                           Listener listener = {}) noexcept;

  // Queues a message to the coordinator (CutReport, ImageWritten, CheckpointAsk). Safe from any
  // thread, never blocks on the network; the client's thread sends it.
  void send(const protocol::Message& message);

  // Stops the thread promptly and without blocking on the network, even if the coordinator is
  // gone (called from MPI_Finalize).
  ~RankControlClient();

  RankControlClient(const RankControlClient&) = delete;
  RankControlClient& operator=(const RankControlClient&) = delete;

  // For tests: true once the coordinator accepted the registration.
  bool registered() const;

  struct Impl;

 private:
  explicit RankControlClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace yadokari::link
