// The cut's hooks for the composition root (shim/lifecycle.cpp), which alone calls them.
#pragma once

#include "pmpi-layer/src/objects/object_state.hpp"  // BlockingWaits

#include <chrono>
#include <cstdint>

namespace yadokari::shim::cut {

// After objects::on_init(), before link::on_init(): the listener for the control link's
// checkpoint messages (cut_protocol.cpp), so that no message arrives before it is there.
void on_init();

// Once the link is up or known absent: with checkpoints on (the memory layer on and a coordinator
// to agree with), the blocking wrappers poll instead of blocking in the library (interruptible.cpp).
void enable_checkpoints(bool on);

// In a restarted process: one line per node when it runs more ranks than it has CPUs, saying that
// waiting ranks yield the CPU on every idle poll (interruptible.cpp, core/idle_policy.hpp).
void report_idle_policy();

// The MPI_Wait family's polling loops for objects::use_blocking_waits() (interruptible.cpp).
const BlockingWaits& polling_waits();

// At the end of the MPI_Init wrapper: if this process was started to restore
// (YADOKARI_RESTORE=<epoch dir>), bring back the shim's state, re-create the MPI objects and
// restore the application's memory. Does not return then: the application continues inside the
// call where it was checkpointed. Any refusal stops the job with one line (restart_loader.cpp).
void restore_if_requested();

// The other concerns' steps around a checkpoint's memory capture, in the order the composition
// root gives them (cut/checkpoint_taker.cpp calls them). Installed at MPI_Init, before any
// checkpoint or restore can happen; both must be set.
struct CheckpointHooks {
  void (*before_capture)();  // the last step before the memory capture
  void (*after_restart)();   // the first step in a restarted process, when the restore returned
};
void set_checkpoint_hooks(const CheckpointHooks& hooks);

// In the restarted process, right after the memory restore returned into the checkpoint:
// re-post the receives that were pending at the cut and tell the front end (restart_loader.cpp).
void on_restart();

// A kept rank of a live move, in its next launch once its objects are re-created: the same
// agreements as on_restart() makes with the ranks that restored `epoch` (the cut of written files,
// the open journal's generation), then the receives re-posted and the front end told; `since` is
// when the rank left its previous launch (restart_loader.cpp).
void on_rejoined(std::uint64_t epoch, std::chrono::steady_clock::time_point since);

// MPI_Finalize: a cut in progress cannot complete any more; abandon it (cut_protocol.cpp).
// May checkpoint the process and return in a restarted one.
void on_finalize();

}  // namespace yadokari::shim::cut
