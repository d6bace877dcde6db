#pragma once
// `yadokari migrate --ranks 2,3 --to n4`: the named ranks go to the named node, every other rank
// stays on the node it runs on. Live migration (only the moved ranks restart, the others keep
// running) is not available yet (docs/platform.md §7 says what each MPI offers), so the move is
// done by a checkpoint and a restart of the whole job with that placement
// (docs/flows/migrate.md). Pure: no I/O.
#include <string>
#include <vector>

#include "runtime/frontend/restart_plan.hpp"
#include "runtime/launch/mpi_flavour.hpp"
#include "scheduler/moves.hpp"

namespace yadokari::frontend {

// Moves of `ranks` to the node with id `to`.
std::vector<scheduler::Move> moves_to(const std::vector<int>& ranks, const std::string& to);

// The plan that keeps every rank on the node of `rank_hosts` except the moved ones. `moves` name
// node ids ("n4"), as users and `yadokari status` do. Throws scheduler::PlacementError (one line,
// in node ids) when the move cannot be done (scheduler/moves.hpp).
RestartPlan plan_moves(int world_size, const std::vector<ClusterNode>& nodes,
                       const std::vector<std::string>& rank_hosts, const std::vector<scheduler::Move>& moves,
                       double max_oversubscribe);

// Why the ranks cannot be moved while the others run, for the line the front end prints.
std::string why_no_live_migration(launch::MpiFlavour flavour);

}  // namespace yadokari::frontend
