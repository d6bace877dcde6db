// Taking this rank's part of a global checkpoint once every rank is parked (cut_protocol.hpp),
// and restoring it in a fresh process of a restarted job (from the MPI_Init wrapper).
#pragma once

#include "pmpi-layer/src/cut/checkpoint_target.hpp"
#include "pmpi-layer/src/cut/cut_state.hpp"  // g_restarts

#include <cstddef>
#include <cstdint>

namespace yadokari::shim {

// Drains in-flight messages (collective over the virtual world), writes
// <epoch dir>/rank-<L>.img and tells the coordinator. Returns `restarted` in a restarted process
// (the second return of the memory capture); the caller then just goes on.
CheckpointOutcome take_checkpoint(const CheckpointTarget& target);

// The restore half (restart_loader.cpp): cut::restore_if_requested() and cut::on_restart()
// (lifecycle.hpp).

}  // namespace yadokari::shim
