/* A signal waiting for an idle OpenMP pool thread at a checkpoint (checkpoint/memory/README.md,
 * "Refused, with the reason"): a restarted process has a new pool, so the signal would have no
 * thread to wait for. Follows table_limits.sh's protocol (table_limits.c): epoch 1 at the first
 * pause point, then a region in which thread 1 blocks SIGUSR2 and sends it to itself, so that it
 * waits there; the checkpoint at the second pause point must be refused with the line rank 0
 * writes to expected-refusals. argv[1] names the case (pool_signal), argv[2] is unused. */
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/apps/pause_point.h"

static void pause_step(const char* step) {
  const char* base = getenv("YK_APP_PAUSE");
  if (!base || !*base) return;
  char go[4096];
  snprintf(go, sizeof go, "%s-%s", base, step);
  yk_app_pause_at(MPI_COMM_WORLD, go);
}

static long work(int rank, int step) {
  long local = 0, total = 0;
#pragma omp parallel for reduction(+ : local)
  for (int i = 0; i < 1000; ++i) local += (long)(rank + 1) * step * i;
  MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  omp_set_num_threads(2);
  work(rank, 1);
  pause_step("1");

  int sent = 0;
#pragma omp parallel reduction(+ : sent)
  if (omp_get_thread_num() == 1) {
    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &usr2, NULL);
    sent += pthread_kill(pthread_self(), SIGUSR2) == 0;
  }
  if (rank == 0) {
    FILE* f = fopen("expected-refusals", "w");
    if (!f ||
        fprintf(f, "signal %d waits for an idle OpenMP thread (blocked there), which is not carried\n", SIGUSR2) < 0 ||
        fclose(f) != 0)
      abort();
    printf("pool_signal: %d sent (%s)\n", sent, sent ? "waiting in the pool" : "nothing");
  }
  pause_step("2");
  long total = work(rank, 2);
  if (rank == 0) printf("done: %ld\n", total);
  MPI_Finalize();
  return 0;
}
