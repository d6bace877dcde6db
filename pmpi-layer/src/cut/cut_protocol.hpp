// The rank side of the consistent cut (docs/architecture.md §4). A checkpoint request reaches the
// control thread asynchronously; the application thread acts on it only at call boundaries:
// the entry of an MPI call, the entry of a collective (the "gate"), and the polling loops of
// blocking calls. Ranks agree on per-communicator targets of collectives entered (computed by
// the coordinator from their reports); a rank parks when every count equals its target and it
// is not inside a collective. When all are parked, the coordinator says go: the ranks drain
// in-flight messages, write their images and wait for the epoch to commit.
#pragma once

#include "pmpi-layer/src/cut/checkpoint_target.hpp"
#include "pmpi-layer/src/cut/cut_state.hpp"

#include <mpi.h>

#include <cstdint>

namespace yadokari::shim {

// g_cut_requested (set by the control thread when a cut is in progress, read relaxed on every
// call boundary) and g_interruptible: cut_state.hpp.

// Every MPI call entry while a cut is requested (CallScope). May checkpoint the process and
// return in a restarted one.
void cut_boundary();

// Entry and exit of every collective call (blocking collectives and collective creations): the
// collective sequence numbers, and waiting at the gate while the cut needs it. `comm` is the
// app's (virtual) handle; nothing the caller looked up before the gate may be used after it.
void collective_gate(MPI_Comm comm);
void collective_done();

// Set up and torn down by the composition root: cut::on_init(), cut::on_finalize() (lifecycle.hpp).

// The application asked for a checkpoint (yadokari_checkpoint()): ask the coordinator and take
// part in the cut right here.
void checkpoint_requested_by_app();

// The epoch directory of the cut in progress, copied into a caller's buffer (the checkpoint keeps
// no heap-owning locals across the memory capture).
bool current_epoch_dir(char* out, std::size_t size);

// Who takes this rank's checkpoint once every rank is parked: take_checkpoint
// (checkpoint_taker.cpp), installed by the composition root before checkpoints are enabled. The
// cut only decides when; so it does not depend on everything a checkpoint touches.
using CheckpointTaker = CheckpointOutcome (*)(const CheckpointTarget&);
void set_checkpoint_taker(CheckpointTaker taker);

// Who swaps the MPI library when a live move keeps this rank (SwapLibrary, after a commit that
// held the job at its cut): shim/library_swap.cpp, installed by the composition root. Returns in
// the next launch, or ends the process.
// `leave`: the rank moves (a new process restores it); it only finalizes the library and waits.
using MoveSwapper = void (*)(std::uint64_t epoch, const char* dir, bool leave);
void set_move_swapper(MoveSwapper swapper);

}  // namespace yadokari::shim
