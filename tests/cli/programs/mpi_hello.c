/* Smallest MPI program: the flavour detector must see its MPI library. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("hello from rank %d\n", rank);
  MPI_Finalize();
  return 0;
}
