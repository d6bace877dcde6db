/* A library that uses MPI, so a program linking only this library is an MPI program one
   level down (MPI found through the library's own DT_NEEDED). */
#include <mpi.h>

int mpi_dependency_world_size(void) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}
