/* Memory test program: the CPU-time clocks never run backwards across a restart. Each iteration
 * passes the call boundary (where the test driver may checkpoint), uses 25 ms of CPU time, then
 * reads every CPU clock the layer corrects and compares it with the previous iteration's reading
 * (kept in .bss, carried). A restarted process starts with almost no CPU time used, so without
 * the correction the first reading after a restart is behind the last one before it.
 * Prints one line per iteration, the same in every run when the clocks are continuous.
 * Usage: cpu_clocks [iterations] */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <time.h>

extern int yk_memtest_boundary(void) __attribute__((weak));

enum { kClocks = 7 };
static const char* const kNames[kClocks] = {"clock()",
                                            "CLOCK_PROCESS_CPUTIME_ID",
                                            "CLOCK_THREAD_CPUTIME_ID",
                                            "getrusage(RUSAGE_SELF)",
                                            "getrusage(RUSAGE_THREAD)",
                                            "times() user",
                                            "times() system+user"};
static double g_previous[kClocks]; /* seconds, carried with .bss */

static double seconds(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double rusage_seconds(int who) {
  struct rusage u;
  getrusage(who, &u);
  return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

static void read_clocks(double* v) {
  struct tms t;
  times(&t);
  v[0] = (double)clock() / CLOCKS_PER_SEC;
  v[1] = seconds(CLOCK_PROCESS_CPUTIME_ID);
  v[2] = seconds(CLOCK_THREAD_CPUTIME_ID);
  v[3] = rusage_seconds(RUSAGE_SELF);
  v[4] = rusage_seconds(RUSAGE_THREAD);
  v[5] = (double)t.tms_utime;
  v[6] = (double)(t.tms_utime + t.tms_stime);
}

static volatile double g_sink;

static void use_cpu(double how_long) {
  double end = seconds(CLOCK_PROCESS_CPUTIME_ID) + how_long;
  double x = 1.0;
  while (seconds(CLOCK_PROCESS_CPUTIME_ID) < end)
    for (int i = 0; i < 10000; ++i) x = x * 1.0000001 + 1e-9;
  g_sink = x;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 12;
  for (int i = 1; i <= n; ++i) {
    if (yk_memtest_boundary) yk_memtest_boundary();
    use_cpu(0.025);
    double now[kClocks];
    read_clocks(now);
    int back = -1;
    for (int c = 0; c < kClocks && back < 0; ++c)
      if (now[c] < g_previous[c]) back = c;
    if (back < 0)
      printf("%d: CPU clocks forward\n", i);
    else
      printf("%d: %s went back from %.3f to %.3f\n", i, kNames[back], g_previous[back], now[back]);
    for (int c = 0; c < kClocks; ++c) g_previous[c] = now[c];
  }
  return 0;
}
