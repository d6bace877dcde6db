// The rank's view of the job: who it is (logical rank), the virtual world, and the shim's own
// communicator. Set up right after the library's MPI_Init by objects::on_init()
// (objects/lifecycle.hpp, called from the composition root, shim/lifecycle.cpp).
#pragma once

#include "pmpi-layer/src/core/recipe.hpp"
#include "pmpi-layer/src/objects/records.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace yadokari::shim {

struct RankIdentity {
  int logical_rank = 0;
  int world_size = 1;
  int thread_level = MPI_THREAD_SINGLE;
  // When MPI_Init returned, on a clock any thread may read (the control thread must not call
  // into a library initialised with MPI_THREAD_SINGLE).
  std::chrono::steady_clock::time_point init_time{};
  double library_init_seconds = 0.0;  // how long the library's MPI_Init took (restart timeline)
};

const RankIdentity& identity();
double seconds_since_init();
MPI_Group world_group();  // real group of the virtual world (translating ranks to logical ones)
CommRecord make_comm_record(MPI_Comm real, std::uint32_t comm_id);

// The shim's own communicator: a duplicate of the virtual world (ranks = logical ranks), so its
// protocol traffic never mixes with the application's. Collective on its first call (the
// consistent cut's), made then, not at MPI_Init.
MPI_Comm shim_comm();

extern const char* const kFlavour;  // "openmpi" or "mpich", fixed at build time

}  // namespace yadokari::shim
