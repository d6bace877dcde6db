/* Failure-free cost of the memory layer's watch on writes (checkpoint/memory/README.md, "Files
 * overwritten after the checkpoint"): times N calls of each kind and prints one line per kind,
 * "<kind> <ns per call>". run.sh runs it without the layer, with the layer preloaded (no checkpoint
 * taken: the journal is off), and with the layer after one checkpoint (the journal on: every write
 * to an application file is watched), and reports the ratios.
 *   write-append   64-byte write(2)s at the end of a file (a log, an output file written in order)
 *   pwrite-inplace 64-byte pwrite(2)s cycling over 64 KiB that the file held at the checkpoint, after
 *                  one pass over it (the bytes are kept once per generation: that pass is not timed)
 *   fprintf        stdio lines to a file (glibc's internal write: never seen by the layer) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 100000;
  const char* dir = argc > 2 ? argv[2] : ".";
  char path[4096];
  char block[65536];
  memset(block, 'a', sizeof block);
  snprintf(path, sizeof path, "%s/inplace.bin", dir);
  const int inplace = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (inplace < 0 || write(inplace, block, sizeof block) != (ssize_t)sizeof block) return 1;
  /* The layer's test driver stands in for MPI: its first boundary call checkpoints when run.sh
   * asks for it (YK_MEMTEST_CKPT_AT=1), and the journal runs from there on. */
  int (*boundary)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "yk_memtest_boundary");
  if (boundary && boundary() < 0) return 2;
  snprintf(path, sizeof path, "%s/append.bin", dir);
  const int append = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  snprintf(path, sizeof path, "%s/lines.txt", dir);
  FILE* lines = fopen(path, "w");
  if (append < 0 || !lines) return 1;
  for (long i = 0; i < 1024; ++i) /* the untimed pass over the in-place region */
    if (pwrite(inplace, block, 64, (off_t)(i % 1024) * 64) != 64) return 3;
  double t0 = now_ns();
  for (long i = 0; i < n; ++i)
    if (write(append, block, 64) != 64) return 3;
  double t1 = now_ns();
  for (long i = 0; i < n; ++i)
    if (pwrite(inplace, block, 64, (off_t)(i % 1024) * 64) != 64) return 3;
  double t2 = now_ns();
  for (long i = 0; i < n; ++i) fprintf(lines, "line %ld of the bench\n", i);
  fflush(lines);
  double t3 = now_ns();
  printf("write-append %.1f\npwrite-inplace %.1f\nfprintf %.1f\n", (t1 - t0) / n, (t2 - t1) / n, (t3 - t2) / n);
  fclose(lines);
  close(append);
  close(inplace);
  return 0;
}
