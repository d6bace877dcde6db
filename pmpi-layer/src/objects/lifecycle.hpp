// The objects' hooks for the composition root (shim/lifecycle.cpp), which alone calls them.
#pragma once

#include "pmpi-layer/src/objects/object_state.hpp"

#include <chrono>
#include <string>

namespace yadokari::shim::objects {

// Right after the library's MPI_Init: the rank's identity (logical rank, world size, thread
// level), the virtual world and MPI_COMM_SELF at table indices 0 and 1 (world.hpp).
void on_init(int thread_level, std::chrono::steady_clock::time_point init_started);

// After the process swapped its MPI library for a fresh copy initialized by a new launch
// (shim/library_swap.cpp): the virtual world on the new library. Returns why the new launch cannot
// host this rank (another size, another rank for it), or nothing.
std::string on_library_swapped();

// How the MPI_Wait family blocks (object_state.hpp, BlockingWaits); null: inside the library.
void use_blocking_waits(const BlockingWaits* waits);

}  // namespace yadokari::shim::objects
