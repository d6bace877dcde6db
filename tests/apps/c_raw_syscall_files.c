/* Output files opened through syscall() instead of open() (tests/apps/README.md), after MPI_Init and
 * kept open across the pause point: raw-open.<rank>.txt with SYS_open, raw-openat.<rank>.txt with
 * SYS_openat, both written with write(2) every iteration and closed with SYS_close at the end. The
 * memory layer follows descriptors through the interposed calls only; syscall() is one of them
 * (checkpoint/memory/README.md, "The application's files"). A descriptor it did not see would not
 * exist after the restart: every write after it would fail, the files would end at the checkpoint
 * and the counts of failed writes printed at the end would not be 0. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/apps/pause_point.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char opened[64], opened_at[64];
  snprintf(opened, sizeof opened, "raw-open.%d.txt", rank);
  snprintf(opened_at, sizeof opened_at, "raw-openat.%d.txt", rank);
  const int fd = (int)syscall(SYS_open, opened, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int fd_at = (int)syscall(SYS_openat, AT_FDCWD, opened_at, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || fd_at < 0) MPI_Abort(MPI_COMM_WORLD, 1);
  long failed = 0;
  double sum = 0;
  for (int iteration = 0; iteration < 30; ++iteration) {
    if (iteration == 15) yk_app_pause_point(MPI_COMM_WORLD);
    double local = (double)(iteration * (rank + 3)), total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sum += total;
    char line[128];
    const int len = snprintf(line, sizeof line, "iteration %d sum %.1f\n", iteration, sum);
    if (write(fd, line, (size_t)len) != len) ++failed;
    if (write(fd_at, line, (size_t)len) != len) ++failed;
  }
  if (syscall(SYS_close, fd) != 0) ++failed;
  if (syscall(SYS_close, fd_at) != 0) ++failed;
  long all_failed = 0;
  MPI_Reduce(&failed, &all_failed, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("sum %.1f, failed writes or closes on all ranks: %ld\n", sum, all_failed);
  MPI_Finalize();
  return 0;
}
