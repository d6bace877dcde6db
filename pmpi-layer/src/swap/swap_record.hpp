#pragma once
// What the swaps of the MPI library in this process cost, phase by phase (shim/library_swap.cpp),
// for the stats (telemetry/stats_writer.cpp) and, later, a live move's timeline.
#include <cstdint>

namespace yadokari::shim::swap {

struct SwapPhases {
  double cut = 0;          // the consistent cut and the state kept as bytes
  double finalize = 0;     // the old copy's MPI_Finalize
  double wait_launch = 0;  // until the new launch's stand-in handed over
  double load = 0;         // the fresh copy loaded into its namespace (before the finalize)
  double bind = 0;         // the process's links pointed at it
  double init = 0;         // its MPI_Init
  double objects = 0;      // the state loaded back, objects re-created, receives re-posted
};

inline std::uint64_t g_library_swaps = 0;
inline SwapPhases g_last_swap{};

}  // namespace yadokari::shim::swap
