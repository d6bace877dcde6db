/* Memory that changes a little between checkpoints, for the incremental-image test
 * (ckpt_incremental.sh): a heap array, a static (.bss) array and, with MAPPED_PAGES, an anonymous
 * mmap'ed buffer, every page filled at the start; then 6 steps, each of which first waits at its
 * pause point (with YK_INCR_PAUSE=<prefix>: rank 0 creates <prefix>-<step>.reached and every rank
 * loops until <prefix>-<step> exists: tests/apps/pause_point.h) and then rewrites about 10 % of the
 * pages of both arrays and 4 pages of the mapped buffer. Rank 0 prints each step's checksum over
 * every rank's memory and a final line; nothing printed depends on how often the pause loops ran.
 * usage: incremental_steps HEAP_PAGES [MAPPED_PAGES] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "tests/apps/pause_point.h"

#define PAGE_WORDS 512 /* 4 KiB of uint64_t */
#define STATIC_PAGES 256
#define STEPS 6

/* Page-aligned, like the heap array: a "page" of these arrays is then one page of memory, and an
 * increment holds the pages rewritten (an unaligned array would dirty two pages for each). */
static uint64_t g_static[STATIC_PAGES * PAGE_WORDS] __attribute__((aligned(4096)));

static void pause_at(int step) {
  const char* prefix = getenv("YK_INCR_PAUSE");
  if (!prefix || !*prefix) return;
  char go[4096];
  snprintf(go, sizeof go, "%s-%d", prefix, step);
  yk_app_pause_at(MPI_COMM_WORLD, go);
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

/* Rewrites the pages of `words` whose index falls on this step (every page when step is 0). */
static void write_pages(uint64_t* words, long pages, int step, int rank, uint64_t salt) {
  for (long p = 0; p < pages; ++p) {
    if (step > 0 && (p * 7 + step) % 10 != 0) continue;
    for (long w = 0; w < PAGE_WORDS; ++w) {
      const long i = p * PAGE_WORDS + w;
      words[i] = mix(words[i] + (uint64_t)i * 31 + (uint64_t)step * 1000003 + (uint64_t)rank * 7919 + salt) | 1;
    }
  }
}

/* Rewrites 4 pages of the mapped buffer, spread over it, other ones at every step. */
static void write_mapped_pages(uint64_t* words, long pages, int step, int rank) {
  for (int k = 0; k < 4; ++k) {
    const long p = ((long)k * pages / 4 + step * 3) % pages;
    for (long w = 0; w < PAGE_WORDS; ++w) {
      const long i = p * PAGE_WORDS + w;
      words[i] = mix(words[i] ^ ((uint64_t)step << 40) ^ (uint64_t)rank << 20 ^ (uint64_t)i) | 1;
    }
  }
}

static uint64_t checksum(const uint64_t* words, long count) {
  uint64_t sum = 0;
  for (long i = 0; i < count; ++i) sum = mix(sum ^ words[i]);
  return sum;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long heap_pages = argc > 1 ? atol(argv[1]) : 4096;
  uint64_t* heap = NULL;
  if (posix_memalign((void**)&heap, 4096, (size_t)heap_pages * PAGE_WORDS * sizeof *heap) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (long i = 0; i < heap_pages * PAGE_WORDS; ++i) heap[i] = (uint64_t)i;
  write_pages(heap, heap_pages, 0, rank, 1);
  write_pages(g_static, STATIC_PAGES, 0, rank, 2);
  const long mapped_pages = argc > 2 ? atol(argv[2]) : 0;
  uint64_t* mapped = NULL;
  if (mapped_pages > 0) {
    mapped = mmap(NULL, (size_t)mapped_pages * PAGE_WORDS * sizeof *mapped, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) MPI_Abort(MPI_COMM_WORLD, 1);
    write_pages(mapped, mapped_pages, 0, rank, 3);
  }
  for (int step = 1; step <= STEPS; ++step) {
    pause_at(step);
    write_pages(heap, heap_pages, step, rank, 1);
    write_pages(g_static, STATIC_PAGES, step, rank, 2);
    if (mapped) write_mapped_pages(mapped, mapped_pages, step, rank);
    uint64_t mine = checksum(heap, heap_pages * PAGE_WORDS) ^ mix(checksum(g_static, STATIC_PAGES * PAGE_WORDS));
    if (mapped) mine ^= mix(mix(checksum(mapped, mapped_pages * PAGE_WORDS)));
    uint64_t all = 0;
    MPI_Reduce(&mine, &all, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("step %d checksum %016llx\n", step, (unsigned long long)all);
    fflush(stdout);
  }
  free(heap);
  if (mapped) munmap(mapped, (size_t)mapped_pages * PAGE_WORDS * sizeof *mapped);
  if (rank == 0) printf("final: %d steps done\n", STEPS);
  MPI_Finalize();
  return 0;
}
