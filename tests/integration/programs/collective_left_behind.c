// A cut asked for by a rank that has not entered a collective which the other ranks have already
// left (ckpt_left_behind.sh). Every rank makes a communicator of all ranks; the ranks other than 0
// reduce onto rank 0 over it (their parts leave at once: they are small) and go on to
// MPI_Finalize. Rank 0 waits, calling MPI_Iprobe, until the file named by argv[2] exists, asks
// for a checkpoint (yadokari_checkpoint(), a no-op without checkpoints), then reduces and prints
// the sum. MODE (argv[1]) says what else the others do, that the cut must see through:
//   freed     the communicator is a duplicate of the world, which they free after the reduction;
//   left-out  a duplicate too, but first the world is split with rank 0 left out (MPI_UNDEFINED);
//   merged    rank 0 and the others are two groups joined by an intercommunicator, which is merged
//             into the communicator.
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "yadokari.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int freed = argc == 3 && strcmp(argv[1], "freed") == 0;
  const int left_out = argc == 3 && strcmp(argv[1], "left-out") == 0;
  const int merged = argc == 3 && strcmp(argv[1], "merged") == 0;
  if (!freed && !left_out && !merged) {
    if (rank == 0) fprintf(stderr, "usage: collective_left_behind freed|left-out|merged GO-FILE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm part = MPI_COMM_NULL, inter = MPI_COMM_NULL, comm;
  if (left_out) MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 0, rank, &part);
  if (merged) {
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : 1, rank, &part);
    MPI_Intercomm_create(part, 0, MPI_COMM_WORLD, rank == 0 ? 1 : 0, 7, &inter);
    MPI_Intercomm_merge(inter, rank != 0, &comm);
  } else {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  }
  if (rank == 0) {
    while (access(argv[2], F_OK) != 0) {
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      usleep(10000);
    }
    yadokari_checkpoint();
  }
  long long mine = rank + 1, sum = 0;
  MPI_Reduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, 0, comm);
  // Rank 0 always frees it: its first MPI call after the reduction, where the cut takes it.
  if (freed || rank == 0) MPI_Comm_free(&comm);
  if (rank == 0) printf("sum %lld\n", sum);
  MPI_Finalize();
  return 0;
}
