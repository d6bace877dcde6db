// Taking this rank's part of a global checkpoint once every rank is parked (cut_protocol.hpp),
// and restoring it in a fresh process of a restarted job (from the MPI_Init wrapper).
#pragma once

#include "cut/cut_state.hpp"  // g_restarts

#include <cstddef>
#include <cstdint>

namespace yk {

struct CheckpointTarget {
  std::uint64_t epoch = 0;
  int compression = 0;  // zstd level, 0 = off
};

enum class CheckpointOutcome { written, failed, restarted };

// Drains in-flight messages (collective over the virtual world), writes
// <epoch dir>/rank-<L>.img and tells the coordinator. Returns `restarted` in a restarted process
// (the second return of the memory capture); the caller then just goes on.
CheckpointOutcome take_checkpoint(const CheckpointTarget& target);

// The cut's epoch directory (cut_protocol.cpp), copied into a caller's buffer.
bool current_epoch_dir(char* out, std::size_t size);

// In the MPI_Init wrapper, after the library and the virtual world are up: if this process was
// started to restore (YADOKARI_RESTORE=<epoch dir>), bring back the shim's state, re-create the
// MPI objects and restore the application's memory. Does not return then: the application
// continues inside the call where it was checkpointed. Any refusal stops the job with one line.
void restore_if_requested();

// In the restarted process, right after the memory restore returned into the checkpoint:
// re-post the receives that were pending at the cut.
void after_restart();

// wtime.cpp: the application's MPI_Wtime continues across a restart.
void remember_wtime_at_checkpoint();
void continue_wtime_after_restart();

}  // namespace yk
