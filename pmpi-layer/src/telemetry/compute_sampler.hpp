// How long this rank computes outside MPI (the `speed` policy's input, scheduler/README.md): a
// sampler thread looks at yadokari::shim::g_current_call every few milliseconds (core/compute_clock.hpp).
// The total lives in the shim's own globals, which no image carries: a restarted process starts
// from zero, so what it reports is always measured in this process, on the node it runs on.
#pragma once

#include <string>

namespace yadokari::shim {

void start_compute_sampler();  // after MPI_Init (also in a restarted process, before its restore)
void stop_compute_sampler();   // in MPI_Finalize; joins the thread

// Seconds the application thread spent outside MPI since this process's MPI_Init; < 0 when the
// sampler does not run (no control plane to report to).
double compute_seconds();

// This node's name as the ranks register it (gethostname).
std::string node_name();

}  // namespace yadokari::shim
