/* Small-message latency microbenchmark used to measure the cost the yadokari shim adds per MPI call.
 *
 *   shim_overhead [--iters N] [--blocks B] [--warmup W] [--bytes S]
 *
 * 1. Ping-pong between ranks 0 and 1 (MPI_Send/MPI_Recv, S bytes, default 8): W warm-up round
 *    trips, then B timed blocks of N round trips each; a block's value is its half round-trip time.
 *    Other ranks wait in MPI_Barrier.
 * 2. MPI_Allreduce (MPI_SUM) of S/8 doubles over all ranks: W warm-up calls, then B blocks of N
 *    calls; a block's value is the slowest rank's mean time per call.
 * S must be a multiple of 8 (the payload is MPI_DOUBLE).
 *
 * Rank 0 prints one JSON line: per metric the median, min, max, first and third quartile of the B
 * block values in microseconds. The median over blocks resists the interference of a noisy machine.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double median, min, max, q1, q3;
} summary_t;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Quantile with linear interpolation over a sorted array. */
static double quantile(const double *v, int n, double q) {
  double pos = q * (double)(n - 1);
  int lo = (int)pos;
  if (lo >= n - 1) return v[n - 1];
  double frac = pos - (double)lo;
  return v[lo] + frac * (v[lo + 1] - v[lo]);
}

static summary_t summarize(double *v, int n) {
  summary_t s;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  s.min = v[0];
  s.max = v[n - 1];
  s.median = quantile(v, n, 0.5);
  s.q1 = quantile(v, n, 0.25);
  s.q3 = quantile(v, n, 0.75);
  return s;
}

static long parse_long(const char *flag, const char *text, long min) {
  char *end = NULL;
  long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min) {
    fprintf(stderr, "shim_overhead: %s needs an integer >= %ld, got '%s'\n", flag, min, text);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return v;
}

static void print_summary(const char *name, summary_t s) {
  printf("\"%s\":{\"median\":%.4f,\"min\":%.4f,\"max\":%.4f,\"q1\":%.4f,\"q3\":%.4f}", name, s.median, s.min,
         s.max, s.q1, s.q3);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  long iters = 20000, blocks = 15, warmup = 5000, bytes = 8;
  for (int i = 1; i < argc; ++i) {
    if (i + 1 >= argc) {
      if (rank == 0) fprintf(stderr, "shim_overhead: unknown or incomplete argument '%s'\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(argv[i], "--iters") == 0) {
      iters = parse_long(argv[i], argv[i + 1], 1);
    } else if (strcmp(argv[i], "--blocks") == 0) {
      blocks = parse_long(argv[i], argv[i + 1], 1);
    } else if (strcmp(argv[i], "--warmup") == 0) {
      warmup = parse_long(argv[i], argv[i + 1], 0);
    } else if (strcmp(argv[i], "--bytes") == 0) {
      bytes = parse_long(argv[i], argv[i + 1], 8);
    } else {
      if (rank == 0) fprintf(stderr, "shim_overhead: unknown argument '%s'\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ++i;
  }
  if (bytes % (long)sizeof(double) != 0) {
    if (rank == 0) fprintf(stderr, "shim_overhead: --bytes must be a multiple of 8, got %ld\n", bytes);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "shim_overhead: needs at least 2 ranks, got %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  int count = (int)(bytes / (long)sizeof(double));
  double *sbuf = calloc((size_t)count, sizeof(double));
  double *rbuf = calloc((size_t)count, sizeof(double));
  double *pp = calloc((size_t)blocks, sizeof(double));
  double *ar = calloc((size_t)blocks, sizeof(double));
  if (!sbuf || !rbuf || !pp || !ar) {
    fprintf(stderr, "shim_overhead: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int i = 0; i < count; ++i) sbuf[i] = (double)(rank + i);

  /* ---- ping-pong 0 <-> 1 ---- */
  const int tag = 7;
  MPI_Barrier(MPI_COMM_WORLD);
  for (long b = -1; b < blocks; ++b) { /* block -1 is the warm-up */
    long n = b < 0 ? warmup : iters;
    double t0 = MPI_Wtime();
    if (rank == 0) {
      for (long i = 0; i < n; ++i) {
        MPI_Send(sbuf, count, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD);
        MPI_Recv(rbuf, count, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else if (rank == 1) {
      for (long i = 0; i < n; ++i) {
        MPI_Recv(rbuf, count, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, count, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD);
      }
    }
    double t1 = MPI_Wtime();
    if (b >= 0 && n > 0) pp[b] = (t1 - t0) / (2.0 * (double)n) * 1e6;
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* ---- allreduce over all ranks ---- */
  for (long b = -1; b < blocks; ++b) {
    long n = b < 0 ? warmup : iters;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; ++i) MPI_Allreduce(sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double local = n > 0 ? (MPI_Wtime() - t0) / (double)n * 1e6 : 0.0, slowest = 0.0;
    MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (b >= 0) ar[b] = slowest;
  }
  /* Keep the result observable so the reductions cannot be elided. */
  double expected = 0.0;
  for (int r = 0; r < size; ++r) expected += (double)r;
  int ok = rbuf[0] == expected;

  if (rank == 0) {
    summary_t spp = summarize(pp, (int)blocks), sar = summarize(ar, (int)blocks);
    printf("{\"bench\":\"shim_overhead\",\"ranks\":%d,\"bytes\":%ld,\"iters\":%ld,\"blocks\":%ld,\"warmup\":%ld,"
           "\"allreduce_ok\":%s,\"unit\":\"us\",",
           size, bytes, iters, blocks, warmup, ok ? "true" : "false");
    print_summary("pingpong_half_rtt", spp);
    printf(",");
    print_summary("allreduce", sar);
    printf("}\n");
    fflush(stdout);
  }
  free(sbuf);
  free(rbuf);
  free(pp);
  free(ar);
  MPI_Finalize();
  return ok ? 0 : 1;
}
