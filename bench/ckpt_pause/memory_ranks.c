/* A rank that holds MiB of data and keeps rewriting a part of it: the synthetic application of
 * bench/ckpt_pause.sh. Usage: memory_ranks MIB ROUNDS [REWRITE_PERCENT]
 * Each rank fills MIB MiB with non-zero data (no page is elided from the image), then runs ROUNDS
 * rounds; each round rewrites REWRITE_PERCENT % of the pages (default 10) and sums them over all
 * ranks. With YK_BENCH_READY=<path>, rank 0 creates <path> after the fill and the ranks then wait
 * until <path>.done exists (the driver takes its checkpoints in between, while the ranks compute). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: memory_ranks MIB ROUNDS [REWRITE_PERCENT]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t bytes = (size_t)strtoull(argv[1], NULL, 10) << 20;
  const long rounds = strtol(argv[2], NULL, 10);
  const long percent = argc > 3 ? strtol(argv[3], NULL, 10) : 10;
  const size_t words = bytes / sizeof(uint64_t), page_words = 4096 / sizeof(uint64_t);
  uint64_t* data = malloc(bytes);
  if (!data) MPI_Abort(MPI_COMM_WORLD, 3);
  for (size_t i = 0; i < words; ++i) data[i] = (i * 2654435761u) ^ (uint64_t)(rank + 1);
  const char* ready = getenv("YK_BENCH_READY");
  char done[4096] = "";
  if (ready && *ready) {
    snprintf(done, sizeof done, "%s.done", ready);
    if (rank == 0) fclose(fopen(ready, "w"));
  }
  const size_t pages = words / page_words, touched = pages * (size_t)percent / 100;
  uint64_t sum = 0;
  for (long r = 0;; ++r) {
    uint64_t local = 0;
    for (size_t p = 0; p < touched; ++p) {
      uint64_t* page = data + ((p * 7919 + (size_t)r * 104729) % pages) * page_words;
      page[0] += (uint64_t)r;
      local += page[0];
    }
    MPI_Allreduce(&local, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (r + 1 < rounds) continue;
    /* Past the rounds asked for: go on (the result does not change its meaning) until the driver
     * says it is done with its checkpoints. */
    int here = !done[0] || (rank == 0 && access(done, F_OK) == 0), stop = 0;
    MPI_Allreduce(&here, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (stop) break;
  }
  if (rank == 0) printf("final %llu\n", (unsigned long long)sum);
  free(data);
  MPI_Finalize();
  return 0;
}
