/* pause_then_crash: a job that a test can checkpoint at a known point and then make crash.
 *
 * 20 steps of an MPI_Allreduce of values that depend only on the rank and the step; rank 0 prints
 * `final <sum>`. At step 10 every rank waits at the pause point of the application tests
 * (tests/apps/pause_point.h, YK_APP_PAUSE), where the test takes its checkpoint. Right after it,
 * if the file named by YK_CRASH exists, rank 1 kills itself with SIGKILL: restored from an epoch
 * taken at the pause point, it dies again, in every incarnation (the always-crashing application
 * that --max-restarts must stop).
 *
 * usage: pause_then_crash
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/apps/pause_point.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long total = 0;
  for (int step = 0; step < 20; ++step) {
    if (step == 10) {
      yk_app_pause_point(MPI_COMM_WORLD);
      const char* crash = getenv("YK_CRASH");
      if (rank == 1 && crash && *crash && access(crash, F_OK) == 0) raise(SIGKILL);
    }
    long mine = (long)(rank + 1) * (step + 3), sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    total = total * 3 + sum;
  }
  if (rank == 0) printf("final %ld\n", total);
  MPI_Finalize();
  return 0;
}
