#pragma once
// A stand-in: the process a launch starts in place of a rank whose process never exited (a live
// move's kept rank; docs/flows/migrate.md, "Live moves"). It hands the kept process what its
// launcher gave it (launcher_handoff.hpp), passes on the signals the launcher sends it, and ends
// with the kept process's exit status, so that the launcher sees an ordinary rank. Run by
// `yadokari stand-in` (runtime/cli) and by the shim itself when the launch names the rank as kept
// (pmpi-layer/src/swap/stand_in_mode.cpp).
#include <optional>
#include <string>

namespace yadokari::protocol {

// The logical rank this process of a launch stands for: the launcher's rank (PMI_RANK from MPICH's
// Hydra, OMPI_COMM_WORLD_RANK from Open MPI's mpirun), through YADOKARI_RANK_MAP when the launch
// has one (real rank i hosts logical rank MAP[i]). Nothing, with `why`, outside a launch.
std::optional<int> launch_logical_rank(std::string& why);

// Connects to DIR/rank-<rank>.sock (waiting up to `timeout_seconds` for the kept process to
// listen), hands over, and waits. The kept process's exit status, or nothing with `why` (one line).
std::optional<int> stand_in(const std::string& dir, int rank, double timeout_seconds, std::string& why);

}  // namespace yadokari::protocol
