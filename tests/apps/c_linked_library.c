/* A library linked with the program at build time (linked_lib.c; tests/apps/README.md): its
 * .data, .bss, TLS block, a block it allocated after main and the communicator it duplicated are
 * used before and after the pause point. Before the layer carried such libraries, the restarted
 * run started them over from the values their file holds, and printed other sums with exit 0. */
#include <mpi.h>
#include <stdio.h>

#include "tests/apps/pause_point.h"

long yk_linked_step(MPI_Comm comm, long x);
int yk_linked_owner_is_this_process(void);

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int iteration = 0; iteration < 20; ++iteration) {
    if (iteration == 10) yk_app_pause_point(MPI_COMM_WORLD);
    const long sum = yk_linked_step(MPI_COMM_WORLD, iteration + rank);
    if (rank == 0) printf("iteration %d %ld\n", iteration, sum);
  }
  int mine = yk_linked_owner_is_this_process(), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf("the library's constructor state is this process's: %s\n", all ? "yes" : "no");
  MPI_Finalize();
  return 0;
}
