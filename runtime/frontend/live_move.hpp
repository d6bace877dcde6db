#pragma once
// The front end's side of a live move (docs/flows/migrate.md, "Live moves"): after the commit of
// the move's epoch, which holds every rank at its cut, the ranks that stay swap their MPI library
// in their processes (pmpi-layer/src/shim/library_swap.cpp) and wait for the next launch, which
// restores only the moved ranks; the kept processes stand in for their own ranks in it.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/control/coordinator.hpp"
#include "scheduler/moves.hpp"

namespace yadokari::frontend {

struct KeptRanks {
  std::uint64_t epoch = 0;
  std::filesystem::path dir;       // where each kept process waits: rank-<L>.sock
  std::map<int, pid_t> processes;  // logical rank -> its process, which the next launch takes over
};

// Why the job cannot move live where it runs ("" if it can): the swap needs the processes' pids
// (one pid namespace with the front end), the images in the shared checkpoint directory, and a
// launcher whose end does not take the kept processes with it (Slurm ends a step's processes).
std::string why_not_live(bool shares_pid_namespace, bool node_local_images, bool under_slurm);

// Tells every rank not moved by `moves` to swap its library and the moved ones to finalize theirs
// (SwapLibrary), and waits, serving the control plane, until each kept one is ready
// (DIR/rank-<L>.pid) or one refused (DIR/rank-<L>.refused).
// Nothing with `why` on a refusal or after `timeout`: the caller restarts the whole job.
std::optional<KeptRanks> keep_unmoved_ranks(control::Coordinator& coordinator, const std::filesystem::path& ckpt_dir,
                                            std::uint64_t epoch, int world_size,
                                            const std::vector<scheduler::Move>& moves,
                                            std::chrono::milliseconds timeout, std::string& why);

// Before the old launch is stopped: SIGKILLs each kept process's parent (Open MPI's orted, MPICH's
// proxy, or the launcher itself), which would otherwise pass a signal on to it when the launch ends.
void detach_kept_processes(const KeptRanks& kept);

// The kept processes themselves, when the move is abandoned after they left their launch.
void stop_kept_processes(const KeptRanks& kept);

// YADOKARI_KEPT_RANKS for the next launch: "0,1,4".
std::string kept_rank_list(const KeptRanks& kept);

}  // namespace yadokari::frontend
