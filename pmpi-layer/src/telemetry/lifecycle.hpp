// Telemetry's hooks for the composition root (shim/lifecycle.cpp), which alone calls them.
#pragma once

namespace yadokari::shim::telemetry {

// After MPI_Init: the compute sampler, only with a front end to report compute time to.
void on_init(bool link_up);

// MPI_Finalize: YADOKARI_STATS files, then the sampler thread is joined.
void on_finalize();

// Just before the memory capture of a checkpoint: MPI_Wtime's value then (wtime.cpp).
void on_checkpoint();

// First thing in a restarted process: MPI_Wtime continues from that value (wtime.cpp).
void on_restart();

}  // namespace yadokari::shim::telemetry
