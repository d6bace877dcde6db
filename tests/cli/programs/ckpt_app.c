/* For the checkpoint tests: each rank prints what `yadokari run`/`restart` put in its
   environment for checkpointing, then it behaves like wait_for_file (stays in the job until the
   file argv[1] exists, rank 0 watching, the others in MPI_Recv; gives up after ~5 minutes). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char* env(const char* name) {
  const char* value = getenv(name);
  return value ? value : "-";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, go = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("rank %d: ckpt_dir=%s restore=%s restore_epoch=%s rank_map=%s\n", rank, env("YADOKARI_CKPT_DIR"),
         env("YADOKARI_RESTORE"), env("YADOKARI_RESTORE_EPOCH"), env("YADOKARI_RANK_MAP"));
  fflush(stdout);
  if (argc < 2) MPI_Abort(MPI_COMM_WORLD, 2);
  if (rank == 0) {
    int waited_ms = 0;
    while (access(argv[1], F_OK) != 0) {
      if (waited_ms > 300 * 1000) MPI_Abort(MPI_COMM_WORLD, 3);
      usleep(20 * 1000);
      waited_ms += 20;
    }
    for (int peer = 1; peer < size; ++peer) MPI_Send(&go, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
