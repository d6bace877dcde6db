/* syslog settings after a restart (tests/apps/README.md; checkpoint/memory/README.md, "Library state
 * the layer carries"): after MPI_Init the program calls openlog with its own identity, LOG_PERROR
 * (libc copies every message to standard error) and a facility, and setlogmask to drop LOG_INFO.
 * Every iteration logs one NOTICE and one INFO message with standard error pointed, for that call
 * only, at syslog.<rank>.txt, so the file holds exactly what libc printed: the identity and the
 * NOTICE lines, never an INFO line. A restart that lost the settings would print nothing (no
 * LOG_PERROR) or the INFO lines, under the program's name. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <unistd.h>

#include "tests/apps/pause_point.h"

static const char identity[] = "yk-syslog";

static void log_step(int fd, int iteration, long value) {
  fflush(stderr);
  int saved = dup(2);
  if (saved < 0 || dup2(fd, 2) != 2) abort();
  syslog(LOG_NOTICE, "iteration %d value %ld", iteration, value);
  syslog(LOG_INFO, "iteration %d masked", iteration);
  if (dup2(saved, 2) != 2) abort();
  close(saved);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  openlog(identity, LOG_PERROR, LOG_LOCAL3);
  setlogmask(LOG_UPTO(LOG_NOTICE));
  char path[64];
  snprintf(path, sizeof path, "syslog.%d.txt", rank);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  if (fd < 0) abort();
  long value = rank + 1;
  for (int iteration = 0; iteration < 8; ++iteration) {
    if (iteration == 4) yk_app_pause_point(MPI_COMM_WORLD);
    long total = 0;
    MPI_Allreduce(&value, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    value = value * 3 + total;
    log_step(fd, iteration, value);
    if (rank == 0) printf("iteration %d: total %ld\n", iteration, total);
  }
  close(fd);
  closelog();
  MPI_Finalize();
  return 0;
}
