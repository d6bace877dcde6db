/* Calls an MPI function yadokari does not cover: the shim must stop the job with one clear
 * line instead of letting the library see virtual handles. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int buf[4];
  MPI_Win win;
  MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  printf("not reached\n");
  MPI_Finalize();
  return 0;
}
