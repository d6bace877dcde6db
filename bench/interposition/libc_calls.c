/* Failure-free cost of the memory layer's interposition of the application's mmap/munmap,
 * mprotect, sigaction, setjmp (each buffer is noted) and getenv (the names the application changed
 * are looked up first; one is changed before the loop) (checkpoint/memory/README.md): times N
 * calls of each kind and prints one line per kind, "<kind> <ns per call>". run.sh runs it with and without the layer preloaded and
 * reports the ratios. */
#define _GNU_SOURCE
#include <setjmp.h>
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
  static jmp_buf envs[64]; /* a working set of buffers, as an interpreter's nested frames have */
  volatile long taken = 0;
  for (long i = 0; i < n; ++i)
    if (setjmp(envs[i % 64]) == 0) taken = taken + 1;
  double t4 = now_ns();
  setenv("YK_BENCH_CHANGED", "1", 1);
  long found = 0;
  for (long i = 0; i < n; ++i) found += getenv("HOME") != NULL;
  double t5 = now_ns();
  if (taken != n || found < 0) return 1;
  printf("mmap+munmap %.1f\nmprotect %.1f\nsigaction %.1f\nsetjmp %.1f\ngetenv %.1f\n", (t1 - t0) / n, (t2 - t1) / n,
         (t3 - t2) / n, (t4 - t3) / n, (t5 - t4) / n);
  return 0;
}
