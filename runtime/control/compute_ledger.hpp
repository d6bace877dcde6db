#pragma once
// Compute times of the last committed epoch, for the `speed` and `auto` policies. Each rank's
// ImageWritten carries what its process has computed (outside MPI) since its MPI_Init and the
// node it runs on; the ledger turns those cumulative readings into the time computed between the
// last two commits, like the traffic rows. Pure logic; the orchestrator owns one per incarnation.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol/codec.hpp"

namespace yadokari::control {

// Per logical rank: seconds computed outside MPI during the interval ending at `epoch`'s commit,
// and the host (as the rank registers it) they were measured on. nullopt / "" = not measured.
struct ComputeTimes {
  std::uint64_t epoch = 0;  // 0: nothing committed yet
  std::vector<std::optional<double>> seconds;
  std::vector<std::string> hosts;
  // The epoch showed no compute for some ranks while others computed (they waited in MPI the whole
  // interval, e.g. behind a slow node): `seconds` are then each process's totals since it started,
  // a window long enough to compare nodes, instead of a zero that would hide the fastest node.
  bool since_start = false;

  bool any() const;
};

class ComputeLedger {
 public:
  explicit ComputeLedger(std::int32_t world_size) : world_size_(world_size) {}

  // At the commit of `epoch`, with every rank's ImageWritten of it. A rank's time is its reading
  // minus its reading at the previous commit this ledger saw, when that was on the same host and
  // not larger (same process); otherwise the whole reading (since its process started). When the
  // differences are zero for some ranks and not for others, every rank's whole reading is used.
  ComputeTimes on_commit(std::uint64_t epoch, const std::map<std::int32_t, protocol::ImageWritten>& images);

 private:
  struct Reading {
    double seconds = 0.0;
    std::string host;
  };
  std::int32_t world_size_;
  std::map<std::int32_t, Reading> previous_;
};

}  // namespace yadokari::control
