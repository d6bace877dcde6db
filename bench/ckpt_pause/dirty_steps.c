/* Ranks that change a known fraction of their memory between checkpoints: the synthetic
 * application of bench/ckpt_incremental.sh. Usage: dirty_steps MIB PERCENT STEPS
 * Each rank fills MIB MiB with non-zero data, then runs STEPS steps; each step first waits at its
 * pause point (with YK_BENCH_PAUSE=<prefix>: rank 0 creates <prefix>-<step>.reached and every rank
 * waits until <prefix>-<step> exists; the driver takes a checkpoint in between) and then rewrites
 * PERCENT % of the pages, a different set each step. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/apps/pause_point.h"

static void pause_at(int step) {
  const char* prefix = getenv("YK_BENCH_PAUSE");
  if (!prefix || !*prefix) return;
  char go[4096];
  snprintf(go, sizeof go, "%s-%d", prefix, step);
  yk_app_pause_at(MPI_COMM_WORLD, go);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: dirty_steps MIB PERCENT STEPS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t bytes = (size_t)strtoull(argv[1], NULL, 10) << 20;
  const long percent = strtol(argv[2], NULL, 10), steps = strtol(argv[3], NULL, 10);
  const size_t page_words = 4096 / sizeof(uint64_t), pages = bytes / 4096;
  uint64_t* data = malloc(bytes);
  if (!data) MPI_Abort(MPI_COMM_WORLD, 3);
  for (size_t i = 0; i < pages * page_words; ++i) data[i] = (i * 2654435761u) ^ (uint64_t)(rank + 1);
  const size_t touched = pages * (size_t)percent / 100;
  uint64_t sum = 0;
  for (long step = 1; step <= steps; ++step) {
    pause_at((int)step);
    uint64_t local = 0;
    for (size_t p = 0; p < touched; ++p) {
      /* Consecutive pages from a different place each step: the set written is exactly `touched`. */
      uint64_t* page = data + ((p + (size_t)step * 104729) % pages) * page_words;
      page[0] += (uint64_t)step;
      local += page[0];
    }
    MPI_Allreduce(&local, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("final %llu\n", (unsigned long long)sum);
  free(data);
  MPI_Finalize();
  return 0;
}
