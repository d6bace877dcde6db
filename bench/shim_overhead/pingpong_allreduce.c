/* Small-message latency microbenchmark used to measure the cost the yadokari shim adds per MPI call.
 *
 *   shim_overhead [--iters N] [--blocks B] [--warmup W] [--bytes S] [--no-inproc]
 *
 * 1. Ping-pong between ranks 0 and 1 (MPI_Send/MPI_Recv, S bytes, default 8): W warm-up round
 *    trips, then B timed blocks of N round trips each; a block's value is its half round-trip time.
 *    Other ranks wait in MPI_Barrier.
 * 2. MPI_Allreduce (MPI_SUM) of S/8 doubles over all ranks: W warm-up calls, then B blocks of N
 *    calls; a block's value is the slowest rank's mean time per call.
 * 3. In-process A/B (unless --no-inproc): B pairs of blocks, one block through the public MPI_Send/
 *    MPI_Recv (or MPI_Allreduce), the other through PMPI_Send/PMPI_Recv (PMPI_Allreduce) directly,
 *    in alternating order. With the shim preloaded the public names are the shim's wrappers and the
 *    PMPI names the MPI library itself, so the per-pair ratio MPI/PMPI and difference MPI-PMPI (in ns)
 *    are the shim's overhead measured under the same conditions; without the shim both are the
 *    library and they are an A/A control (ratio ~1, difference ~0).
 * S must be a multiple of 8 (the payload is MPI_DOUBLE).
 *
 * Rank 0 prints one JSON line: per metric the median, min, max, first and third quartile of the B
 * block values (microseconds; for the in-process part also ratios and differences in nanoseconds). The median over blocks resists
 * the interference of a noisy machine.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double median, min, max, q1, q3;
} summary_t;

typedef int (*send_fn)(const void*, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status*);
typedef int (*allreduce_fn)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);

typedef struct {
  send_fn send;
  recv_fn recv;
  allreduce_fn allreduce;
} api_t;

static const api_t kPublic = {MPI_Send, MPI_Recv, MPI_Allreduce};
static const api_t kProfiling = {PMPI_Send, PMPI_Recv, PMPI_Allreduce};

typedef struct {
  int rank, count;
  double *sbuf, *rbuf;
} ctx_t;

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Quantile with linear interpolation over a sorted array. */
static double quantile(const double* v, int n, double q) {
  double pos = q * (double)(n - 1);
  int lo = (int)pos;
  if (lo >= n - 1) return v[n - 1];
  double frac = pos - (double)lo;
  return v[lo] + frac * (v[lo + 1] - v[lo]);
}

/* Sorts v in place. */
static summary_t summarize(double* v, int n) {
  summary_t s;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  s.min = v[0];
  s.max = v[n - 1];
  s.median = quantile(v, n, 0.5);
  s.q1 = quantile(v, n, 0.25);
  s.q3 = quantile(v, n, 0.75);
  return s;
}

static long parse_long(const char* flag, const char* text, long min) {
  char* end = NULL;
  long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min) {
    fprintf(stderr, "shim_overhead: %s needs an integer >= %ld, got '%s'\n", flag, min, text);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return v;
}

static void print_summary(const char* name, summary_t s) {
  printf("\"%s\":{\"median\":%.4f,\"min\":%.4f,\"max\":%.4f,\"q1\":%.4f,\"q3\":%.4f}", name, s.median, s.min, s.max,
         s.q1, s.q3);
}

/* n round trips between ranks 0 and 1; returns the half round-trip time in us (0 on other ranks). */
static double pingpong_block(const ctx_t* c, const api_t* api, long n) {
  const int tag = 7;
  double t0 = MPI_Wtime();
  if (c->rank == 0) {
    for (long i = 0; i < n; ++i) {
      api->send(c->sbuf, c->count, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD);
      api->recv(c->rbuf, c->count, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (c->rank == 1) {
    for (long i = 0; i < n; ++i) {
      api->recv(c->rbuf, c->count, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      api->send(c->sbuf, c->count, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD);
    }
  }
  double t1 = MPI_Wtime();
  return n > 0 && c->rank <= 1 ? (t1 - t0) / (2.0 * (double)n) * 1e6 : 0.0;
}

/* n allreduces over all ranks; returns (on rank 0) the slowest rank's mean time per call in us. */
static double allreduce_block(const ctx_t* c, const api_t* api, long n) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long i = 0; i < n; ++i) api->allreduce(c->sbuf, c->rbuf, c->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double local = n > 0 ? (MPI_Wtime() - t0) / (double)n * 1e6 : 0.0, slowest = 0.0;
  MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return slowest;
}

/* In-process A/B of one measurement: blocks through the public names (the shim's wrappers when
 * it is preloaded) alternate with blocks through the PMPI names, the order flipping each block. */
typedef double (*block_fn)(const ctx_t*, const api_t*, long);
static void ab_blocks(const ctx_t* c, block_fn block, long warmup, long blocks, long iters, double* pub, double* prof,
                      double* ratio, double* diff_ns) {
  MPI_Barrier(MPI_COMM_WORLD);
  block(c, &kProfiling, warmup);
  for (long b = 0; b < blocks; ++b) {
    if (b % 2 == 0) {
      pub[b] = block(c, &kPublic, iters);
      prof[b] = block(c, &kProfiling, iters);
    } else {
      prof[b] = block(c, &kProfiling, iters);
      pub[b] = block(c, &kPublic, iters);
    }
    ratio[b] = prof[b] > 0 ? pub[b] / prof[b] : 0.0;
    diff_ns[b] = (pub[b] - prof[b]) * 1000.0;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  long iters = 20000, blocks = 15, warmup = 5000, bytes = 8;
  int inproc = 1;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--no-inproc") == 0) {
      inproc = 0;
      continue;
    }
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

  ctx_t c = {rank, (int)(bytes / (long)sizeof(double)), NULL, NULL};
  c.sbuf = calloc((size_t)c.count, sizeof(double));
  c.rbuf = calloc((size_t)c.count, sizeof(double));
  /* pp, ar: phases 1 and 2; the rest: phase 3 (public, profiling, ratio; ping-pong then allreduce). */
  enum { kVectors = 10 };
  double* v[kVectors];
  for (int k = 0; k < kVectors; ++k) v[k] = calloc((size_t)blocks, sizeof(double));
  double *pp = v[0], *ar = v[1], *pp_pub = v[2], *pp_prof = v[3], *pp_ratio = v[4], *pp_diff = v[5], *ar_pub = v[6],
         *ar_prof = v[7], *ar_ratio = v[8], *ar_diff = v[9];
  int oom = !c.sbuf || !c.rbuf;
  for (int k = 0; k < kVectors; ++k) oom |= !v[k];
  if (oom) {
    fprintf(stderr, "shim_overhead: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int i = 0; i < c.count; ++i) c.sbuf[i] = (double)(rank + i);

  /* ---- 1. ping-pong 0 <-> 1 ---- */
  MPI_Barrier(MPI_COMM_WORLD);
  pingpong_block(&c, &kPublic, warmup);
  for (long b = 0; b < blocks; ++b) pp[b] = pingpong_block(&c, &kPublic, iters);
  MPI_Barrier(MPI_COMM_WORLD);

  /* ---- 2. allreduce over all ranks ---- */
  allreduce_block(&c, &kPublic, warmup);
  for (long b = 0; b < blocks; ++b) ar[b] = allreduce_block(&c, &kPublic, iters);
  /* Keep the result observable so the reductions cannot be elided. */
  double expected = 0.0;
  for (int r = 0; r < size; ++r) expected += (double)r;
  int ok = c.rbuf[0] == expected;

  /* ---- 3. in-process A/B: public names vs. PMPI names, alternating block order ---- */
  if (inproc) {
    ab_blocks(&c, pingpong_block, warmup, blocks, iters, pp_pub, pp_prof, pp_ratio, pp_diff);
    ab_blocks(&c, allreduce_block, warmup, blocks, iters, ar_pub, ar_prof, ar_ratio, ar_diff);
    ok = ok && c.rbuf[0] == expected;
  }

  if (rank == 0) {
    int n = (int)blocks;
    printf(
        "{\"bench\":\"shim_overhead\",\"ranks\":%d,\"bytes\":%ld,\"iters\":%ld,\"blocks\":%ld,\"warmup\":%ld,"
        "\"allreduce_ok\":%s,\"unit\":\"us\",",
        size, bytes, iters, blocks, warmup, ok ? "true" : "false");
    print_summary("pingpong_half_rtt", summarize(pp, n));
    printf(",");
    print_summary("allreduce", summarize(ar, n));
    if (inproc) {
      printf(",\"inproc\":{");
      print_summary("pingpong_public", summarize(pp_pub, n));
      printf(",");
      print_summary("pingpong_pmpi", summarize(pp_prof, n));
      printf(",");
      print_summary("pingpong_ratio", summarize(pp_ratio, n));
      printf(",");
      print_summary("pingpong_diff_ns", summarize(pp_diff, n));
      printf(",");
      print_summary("allreduce_public", summarize(ar_pub, n));
      printf(",");
      print_summary("allreduce_pmpi", summarize(ar_prof, n));
      printf(",");
      print_summary("allreduce_ratio", summarize(ar_ratio, n));
      printf(",");
      print_summary("allreduce_diff_ns", summarize(ar_diff, n));
      printf("}");
    }
    printf("}\n");
    fflush(stdout);
  }
  free(c.sbuf);
  free(c.rbuf);
  for (int k = 0; k < kVectors; ++k) free(v[k]);
  MPI_Finalize();
  return ok ? 0 : 1;
}
