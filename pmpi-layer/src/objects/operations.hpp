#pragma once

#include <mpi.h>

namespace yadokari::shim {

// Shared by the C wrappers and the Fortran bindings (which pass fortran = true).
int create_op(void* user_fn, int commute, bool fortran, MPI_Op* op);
int create_errhandler(void* user_fn, bool fortran, MPI_Errhandler* errhandler);

}  // namespace yadokari::shim
