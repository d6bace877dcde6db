#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size, token = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    token = 1;
    MPI_Send(&token, 1, MPI_INT, 1 % size, 0, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("token %d\n", token);
  } else {
    MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ++token;
    MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
