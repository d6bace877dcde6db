/* MPI + OpenMP (tests/apps/README.md): reductions in several parallel regions before and after the
 * pause point, with OpenMP settings the application changed before it (omp_set_num_threads(3),
 * omp_set_schedule(static, 5) after static with default chunks) and prints after it. The checkpoint is taken outside any parallel
 * region: libgomp's idle pool threads are not the application's (checkpoint/memory/README.md,
 * "Library state the layer carries"), the fresh libgomp of the restart makes a new pool, and the
 * settings come back from the image even when the restart's environment says OMP_NUM_THREADS=1.
 * Every number printed is an integer computed with a static schedule, the per-thread partial
 * results kept in an array indexed by thread id and printed in that order, so the output depends
 * on the team size and the schedule but not on timing. Before the pause point a region blocks
 * SIGUSR2 on every thread but the master, and every iteration counts the team's threads that have
 * it blocked: the restart's new pool threads must have the masks the old ones had. */
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/apps/pause_point.h"

enum { kMaxThreads = 64, kN = 200000 };

static long partial[kMaxThreads];

static long value(long i, int iteration, int rank) { return (i * (iteration + 3) + rank * 7) % 1009; }

/* One region with an OpenMP reduction and per-thread partial sums (schedule(static)). */
static long sum_of_squares(int iteration, int rank, int* team) {
  memset(partial, 0, sizeof partial);
  long total = 0;
#pragma omp parallel reduction(+ : total)
  {
    const int id = omp_get_thread_num();
#pragma omp single
    *team = omp_get_num_threads();
    long mine = 0;
#pragma omp for schedule(static)
    for (long i = 0; i < kN; ++i) mine += value(i, iteration, rank) * value(i, iteration, rank);
    if (id < kMaxThreads) partial[id] = mine;
    total += mine;
  }
  return total;
}

/* A second region: schedule(runtime), so the partial sums show the schedule omp_set_schedule set. */
static long runtime_sum(int iteration, int rank) {
  memset(partial, 0, sizeof partial);
  long total = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : total)
  for (long i = 0; i < kN; ++i) {
    const long v = value(i, iteration, rank) + i % 13;
    total += v;
    const int id = omp_get_thread_num();
    if (id < kMaxThreads) partial[id] += v;
  }
  return total;
}

/* Blocks SIGUSR2 on the team's threads other than the master (a pool thread keeps its mask). */
static void block_on_pool_threads(void) {
#pragma omp parallel
  if (omp_get_thread_num() != 0) {
    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &usr2, NULL);
  }
}

/* How many of the team's threads have SIGUSR2 blocked. */
static int threads_blocking(void) {
  int blocking = 0;
#pragma omp parallel reduction(+ : blocking)
  {
    sigset_t now;
    pthread_sigmask(SIG_BLOCK, NULL, &now);
    blocking += sigismember(&now, SIGUSR2);
  }
  return blocking;
}

static void print_partials(int rank, const char* what, int iteration, int team) {
  if (rank != 0) return;
  printf("iteration %d %s partials:", iteration, what);
  for (int t = 0; t < team && t < kMaxThreads; ++t) printf(" %ld", partial[t]);
  printf("\n");
}

static void print_settings(int rank, const char* when) {
  omp_sched_t kind;
  int chunk = 0;
  omp_get_schedule(&kind, &chunk);
  if (rank == 0)
    printf("%s: max threads %d, schedule kind %d chunk %d, in parallel %d\n", when, omp_get_max_threads(), (int)kind,
           chunk, omp_in_parallel());
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  omp_set_schedule(omp_sched_static, 0); /* libgomp's default run-sched-var is dynamic */
  print_settings(rank, "start");
  for (int iteration = 0; iteration < 8; ++iteration) {
    if (iteration == 2) {
      omp_set_num_threads(3);
      omp_set_schedule(omp_sched_static, 5);
      print_settings(rank, "changed");
      block_on_pool_threads();
    }
    if (iteration == 4) {
      yk_app_pause_point(MPI_COMM_WORLD);
      print_settings(rank, "after the pause point");
    }
    int team = 0;
    long local[2], global[2] = {0, 0};
    local[0] = sum_of_squares(iteration, rank, &team);
    print_partials(rank, "static", iteration, team);
    local[1] = runtime_sum(iteration, rank);
    print_partials(rank, "runtime", iteration, team);
    MPI_Allreduce(local, global, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    const int blocking = threads_blocking();
    if (rank == 0)
      printf("iteration %d team %d sums %ld %ld, threads blocking SIGUSR2 %d\n", iteration, team, global[0], global[1],
             blocking);
  }
  MPI_Finalize();
  return 0;
}
