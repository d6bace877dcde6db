/* Failure-free cost of the memory layer's interposition of the application's mmap/munmap,
 * mprotect and sigaction (checkpoint/memory/README.md): times N calls of each kind and prints one
 * line per kind, "<kind> <ns per call>". run.sh runs it with and without the layer preloaded and
 * reports the ratios. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static void handler(int sig) { (void)sig; }

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  /* Live mappings around the measured ones, as an application has: the table is searched. */
  void* keep[32];
  for (int i = 0; i < 32; ++i)
    keep[i] = mmap(NULL, 4096 * (i + 1), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  double t0 = now_ns();
  for (long i = 0; i < n; ++i) {
    void* p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    munmap(p, 65536);
  }
  double t1 = now_ns();
  char* q = keep[31];
  for (long i = 0; i < n; ++i) mprotect(q + 4096 * (i % 4), 4096, (i & 1) ? PROT_READ : PROT_READ | PROT_WRITE);
  double t2 = now_ns();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  for (long i = 0; i < n; ++i) sigaction(SIGUSR1, &sa, NULL);
  double t3 = now_ns();
  printf("mmap+munmap %.1f\nmprotect %.1f\nsigaction %.1f\n", (t1 - t0) / n, (t2 - t1) / n, (t3 - t2) / n);
  return 0;
}
