#pragma once
// What `yadokari restart` checks before it launches anything: which epoch to restore, and that
// the job it would launch can restore it (ranks, MPI flavour, the very same executable).
// Libraries are checked by each rank at restore time, where they are actually loaded.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runtime/frontend/job_file.hpp"
#include "runtime/launch/mpi_flavour.hpp"

namespace yadokari::frontend {

struct RestartChoice {
  std::uint64_t epoch = 0;
  std::filesystem::path epoch_dir;  // absolute
  launch::MpiFlavour flavour = launch::MpiFlavour::openmpi;
  // "epoch 3 is not usable (rank-1.img: checksum mismatch in area 'heap'); using epoch 2", one
  // per newer committed epoch passed over; printed once everything else checked out.
  std::vector<std::string> notes;
};

// `dir` is absolute; `app` is job.app resolved; `ranks` is -n if given.
// Throws FrontendError(1) with one of the messages in runtime/README.md ("no usable checkpoint in D",
// "epoch E has X images but the job has N ranks", ...).
RestartChoice choose_restart(const std::filesystem::path& dir, const JobFile& job, const std::filesystem::path& app,
                             std::optional<int> ranks);

// The newest committed epoch of `dir` when its images are kept on the nodes (--node-dir): the front
// end cannot read them, so the epoch to restore is chosen and staged by the nodes' agents once the
// job's agents run (node_local_restart.hpp), like an automatic restart's.
struct NodeLocalCheckpoint {
  std::uint64_t newest = 0;  // the newest committed epoch
  std::string job_id;        // of the job that wrote it: its images are in <node dir>/<job id>/
  std::string nodes;         // "n1, n2, n3": the nodes its MANIFEST names
  launch::MpiFlavour flavour = launch::MpiFlavour::openmpi;
};

// nullopt when the newest committed epoch's images are in `dir` (or nothing is committed:
// choose_restart() says why). Otherwise checks what can be checked without the images (ranks, MPI
// flavour) and throws FrontendError(failure) like choose_restart().
std::optional<NodeLocalCheckpoint> node_local_checkpoint(const std::filesystem::path& dir, const JobFile& job,
                                                         const std::filesystem::path& app, std::optional<int> ranks);

}  // namespace yadokari::frontend
