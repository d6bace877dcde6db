// mpich_ucx_finalize_hooks.hpp, in the MPICH shim.
#include "pmpi-layer/src/shim/mpich_ucx_finalize_hooks.hpp"

#include "checkpoint/memory/library_scope.hpp"
#include "pmpi-layer/src/telemetry/call_counters.hpp"  // g_current_call

namespace yadokari::shim::ucx_finalize {

bool inside_mpi_finalize() { return g_current_call.load(std::memory_order_relaxed) == Fn::MPI_Finalize; }

void helper_thread_started() { yadokari::memory::enter_library(); }

}  // namespace yadokari::shim::ucx_finalize
