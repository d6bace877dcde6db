#pragma once
// What mpich_ucx_finalize.cpp needs from where it is built: the MPICH shim
// (mpich_ucx_finalize_hooks.cpp) or the namespace library of a swapped copy of MPICH
// (pmpi-layer/src/swap/namespace_ucx_hooks.cpp, which asks the shim).
namespace yadokari::shim::ucx_finalize {

// Whether the application is inside MPI_Finalize: only MPICH's finalize starts the helper thread.
bool inside_mpi_finalize();

// On the helper thread, first: what UCX allocates there is the library's, as inside any MPI call.
void helper_thread_started();

}  // namespace yadokari::shim::ucx_finalize
