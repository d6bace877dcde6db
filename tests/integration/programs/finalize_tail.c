// What a program does after MPI_Finalize (finalize_tcp.sh): every rank sends to every other
// (MPI_Alltoall), so that on MPICH over UCX's TCP transport every endpoint closes in flush mode
// (docs/platform.md §1); rank 0 prints the sum, then after MPI_Finalize a line left in stdio's
// buffer and a line from an atexit handler, and every rank exits with status 3.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void say_goodbye(void) { printf("atexit handler ran\n"); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* out = malloc(sizeof(int) * (size_t)size);
  int* in = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) out[i] = rank * size + i;
  MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
  int mine = 0, sum = 0;
  for (int i = 0; i < size; ++i) mine += in[i];
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  free(out);
  free(in);
  if (rank == 0) {
    printf("final %d\n", sum);
    fflush(stdout);
    atexit(say_goodbye);
  }
  MPI_Finalize();
  // Still in stdio's buffer when the program returns: only exit() writes it out.
  if (rank == 0) printf("after MPI_Finalize\n");
  return 3;
}
