/* The pause point of the application tests (tests/apps/README.md): one place mid-run where the
 * harness takes its checkpoint. With YK_APP_PAUSE set, rank 0 creates "$YK_APP_PAUSE.reached" and
 * every rank loops (an MPI_Allreduce of "does $YK_APP_PAUSE exist on rank 0", then 10 ms of sleep)
 * until that file exists. The harness asks for a checkpoint while the ranks loop, so the epoch is
 * always taken here, never at the end, whatever the machine's speed. Nothing printed depends on
 * how many times the loop ran. Without YK_APP_PAUSE it returns at once. */
#ifndef YK_APP_PAUSE_POINT_H
#define YK_APP_PAUSE_POINT_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* The same wait on the file `go` (programs with several pause points name one file per step). */
static inline void yk_app_pause_at(MPI_Comm comm, const char* go) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    char reached[4200]; /* room for a step file name of up to 4 KiB plus the suffix */
    snprintf(reached, sizeof reached, "%s.reached", go);
    FILE* f = fopen(reached, "w");
    if (f) fclose(f);
  }
  for (;;) {
    int here = rank == 0 && access(go, F_OK) == 0;
    int everywhere = 0;
    MPI_Allreduce(&here, &everywhere, 1, MPI_INT, MPI_MAX, comm);
    if (everywhere) return;
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    nanosleep(&ten_ms, NULL);
  }
}

static inline void yk_app_pause_point(MPI_Comm comm) {
  const char* go = getenv("YK_APP_PAUSE");
  if (go && *go) yk_app_pause_at(comm, go);
}

#endif
