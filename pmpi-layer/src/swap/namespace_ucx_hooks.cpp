// mpich_ucx_finalize_hooks.hpp in the library loaded first into each fresh copy's namespace of
// MPICH (libyadokari-namespace-mpich.so, swap/library_copy.cpp): the copy's UCX calls reach this
// namespace's wrappers, not the shim's, and the answers come from the shim, which sets them.
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/mpich_ucx_finalize_hooks.hpp"

namespace {
bool (*g_inside_mpi_finalize)() = nullptr;
void (*g_helper_thread_started)() = nullptr;
}  // namespace

extern "C" YK_API void yadokari_namespace_ucx_hooks(bool (*inside_mpi_finalize)(), void (*helper_thread_started)()) {
  g_inside_mpi_finalize = inside_mpi_finalize;
  g_helper_thread_started = helper_thread_started;
}

namespace yadokari::shim::ucx_finalize {

bool inside_mpi_finalize() { return g_inside_mpi_finalize && g_inside_mpi_finalize(); }

void helper_thread_started() {
  if (g_helper_thread_started) g_helper_thread_started();
}

}  // namespace yadokari::shim::ucx_finalize
