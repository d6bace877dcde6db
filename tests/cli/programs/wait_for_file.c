/* Stays inside the MPI job until the file named by argv[1] exists, so a test can look at the
   running job for as long as it needs; then exits with argv[2] (default 0).
   Rank 0 watches for the file while the other ranks wait for it inside MPI_Recv, so a status
   query sees them in an MPI call. Rank 0 gives up after ~5 minutes so a broken test cannot
   leave the job running forever. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 2) {
    fprintf(stderr, "usage: wait_for_file FILE [EXIT_CODE]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank = 0, size = 1, go = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    int waited_ms = 0;
    while (access(argv[1], F_OK) != 0) {
      if (waited_ms > 300 * 1000) {
        fprintf(stderr, "wait_for_file: gave up waiting for %s\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      usleep(20 * 1000);
      waited_ms += 20;
    }
    for (int peer = 1; peer < size; ++peer) MPI_Send(&go, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return argc > 2 ? atoi(argv[2]) : 0;
}
