/* node_groups: a communicator of the ranks that share a node (MPI_Comm_split_type,
 * MPI_COMM_TYPE_SHARED) keeps the members it was made with, whatever a restart does to the
 * placement: every step checks them against those seen at the start and aborts (exit 3) if they
 * changed. Rank 0 prints "split" once the communicator is made, then a final line that does not
 * depend on where the ranks run (integer sums only).
 * usage: node_groups [STEPS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int steps = argc > 1 ? atoi(argv[1]) : 300;

  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  int* first = malloc(sizeof(int) * (size_t)node_size);
  int* now = malloc(sizeof(int) * (size_t)size);
  MPI_Allgather(&rank, 1, MPI_INT, first, 1, MPI_INT, node);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    printf("split\n");
    fflush(stdout);
  }

  long long total = 0;
  for (int step = 0; step < steps; ++step) {
    int members = 0;
    MPI_Comm_size(node, &members);
    if (members == node_size) MPI_Allgather(&rank, 1, MPI_INT, now, 1, MPI_INT, node);
    if (members != node_size || memcmp(first, now, sizeof(int) * (size_t)node_size) != 0) {
      fprintf(stderr, "node_groups: rank %d, step %d: the node communicator has other members than at the start\n",
              rank, step);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    long long local = 0;
    for (int i = 0; i < 20000; ++i) local += (long long)((i * (rank + 1) + step) % 97);
    long long within = 0, sum = 0;
    MPI_Allreduce(&local, &within, 1, MPI_LONG_LONG, MPI_SUM, node);
    MPI_Allreduce(&local, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    total += sum;
    usleep(2000);
  }
  if (rank == 0) printf("final %lld\n", total);
  MPI_Comm_free(&node);
  free(first);
  free(now);
  MPI_Finalize();
  return 0;
}
