// MPI_Wtime across restarts. The library's clock starts afresh in every incarnation (Open MPI
// counts from its own initialisation), so an application that took a start time before the
// checkpoint would see time run backwards after the restart. The shim keeps the application's
// clock continuous: the value at the checkpoint is carried in the image, and the restarted
// process adds the difference. Time the job spent stopped is not counted.
#include "pmpi-layer/src/telemetry/lifecycle.hpp"
#include "pmpi-layer/src/shim/api.hpp"

#include "checkpoint/memory/memory.h"

#include <mpi.h>

namespace yadokari::shim {
namespace {

struct CarriedClock {
  double wtime_at_checkpoint = 0.0;
};
CarriedClock g_carried_clock;  // restored with the application's memory (yk_mem_carry)
double g_wtime_offset = 0.0;   // this process's correction; never carried

__attribute__((constructor(102))) void carry_clock() {
  yk_mem_carry(&g_carried_clock, sizeof g_carried_clock, "yadokari-wtime");
}

}  // namespace

void telemetry::on_checkpoint() { g_carried_clock.wtime_at_checkpoint = PMPI_Wtime() + g_wtime_offset; }

void telemetry::on_restart() { g_wtime_offset = g_carried_clock.wtime_at_checkpoint - PMPI_Wtime(); }

}  // namespace yadokari::shim

extern "C" YK_API double MPI_Wtime(void) { return PMPI_Wtime() + yadokari::shim::g_wtime_offset; }
