/* What a kept rank's pause costs when its MPI library is swapped (bench/migration/swap_pause.sh):
 * every rank holds MB megabytes of rank-dependent data, the ranks agree on a checksum
 * (MPI_Allreduce), then SWAPS times each rank calls yadokari_swap_library() (the shim's; a new
 * launch whose stand-ins hand the process over must follow, pmpi-layer/README.md "Swapping the MPI
 * library in a running process") and times the call with CLOCK_MONOTONIC inside the process; after
 * each swap the checksum is computed again over the memory and the new world and must be the same.
 *
 *   swap_pause MB SWAPS          prints "pause rank R swap S: X.XXX s" and "checksum ok ..." per swap
 *   swap_pause MB 0 STOPFILE     (the comparison under `yadokari run`) holds the memory and calls
 *                                MPI_Allreduce every 50 ms until STOPFILE exists (rank 0 looks),
 *                                then prints "longest round rank R: X.XXX s" (the longest time
 *                                between the ends of two rounds, 50 ms of sleep included) and checks
 *                                the checksum once; a checkpoint and restart in between (yadokari
 *                                rebalance) must leave it the same
 *
 * Any wrong checksum or failed swap aborts (MPI_Abort, exit 1). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int yadokari_swap_library(void) __attribute__((weak));

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The local part of the checksum: every word of the memory, position-weighted, plus the rank. */
static uint64_t local_sum(const uint64_t* words, size_t n, int rank) {
  uint64_t s = (uint64_t)rank + 1;
  for (size_t i = 0; i < n; ++i) s += words[i] * (2 * (uint64_t)i + 1);
  return s;
}

static uint64_t world_sum(const uint64_t* words, size_t n, int rank) {
  uint64_t mine = local_sum(words, n, rank), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

static void check(uint64_t expected, uint64_t got, int rank, const char* when) {
  if (got == expected) {
    printf("checksum ok rank %d %s: %016llx\n", rank, when, (unsigned long long)got);
    fflush(stdout);
    return;
  }
  fprintf(stderr, "swap_pause: rank %d: checksum %s is %016llx, expected %016llx\n", rank, when,
          (unsigned long long)got, (unsigned long long)expected);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || atoi(argv[1]) < 0 || atoi(argv[2]) < 0 || (atoi(argv[2]) == 0 && argc < 4)) {
    if (rank == 0) fprintf(stderr, "usage: swap_pause MB SWAPS | swap_pause MB 0 STOPFILE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t mb = (size_t)atoi(argv[1]);
  const int swaps = atoi(argv[2]);
  const size_t n = mb * 1024 * 1024 / sizeof(uint64_t);
  uint64_t* words = n ? malloc(n * sizeof(uint64_t)) : NULL;
  if (n && !words) {
    fprintf(stderr, "swap_pause: rank %d: cannot allocate %zu MB\n", rank, mb);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const uint64_t seed = 0x9e3779b97f4a7c15ULL * (uint64_t)(rank + 1);
  for (size_t i = 0; i < n; ++i) words[i] = seed ^ (i * 0xbf58476d1ce4e5b9ULL);
  const uint64_t expected = world_sum(words, n, rank);
  printf("rank %d of %d holds %zu MB, pid %d; checksum %016llx\n", rank, size, mb, (int)getpid(),
         (unsigned long long)expected);
  fflush(stdout);

  if (swaps == 0) {
    /* The longest time between the ends of two rounds is the pause a checkpoint and restart cost
     * the process as it sees it (CLOCK_MONOTONIC is the host's: a restored process reads it on). */
    const char* stop = argv[3];
    long rounds = 0;
    double last = now(), longest = 0;
    for (int done = 0; !done; ++rounds) {
      usleep(50000);
      int mine = rank == 0 && access(stop, F_OK) == 0;
      MPI_Allreduce(&mine, &done, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      const double t = now();
      if (t - last > longest) longest = t - last;
      last = t;
    }
    printf("longest round rank %d: %.3f s\n", rank, longest);
    char when[64];
    snprintf(when, sizeof when, "after %ld rounds", rounds);
    check(expected, world_sum(words, n, rank), rank, when);
  }
  for (int s = 1; s <= swaps; ++s) {
    if (!yadokari_swap_library) {
      fprintf(stderr, "swap_pause: rank %d: no yadokari_swap_library (run it under the shim)\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fflush(stdout);
    fflush(stderr);
    const double before = now();
    const int rc = yadokari_swap_library();
    const double after = now();
    if (rc != MPI_SUCCESS) {
      fprintf(stderr, "swap_pause: rank %d: swap %d returned %d\n", rank, s, rc);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("pause rank %d swap %d: %.3f s\n", rank, s, after - before);
    char when[32];
    snprintf(when, sizeof when, "after swap %d", s);
    check(expected, world_sum(words, n, rank), rank, when);
  }
  free(words);
  MPI_Finalize();
  return 0;
}
