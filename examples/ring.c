/* ring: point-to-point ring passes plus a Jacobi solver on a 1D distributed vector.
 *
 * Exercises the blocking basics a PMPI shim must virtualise: MPI_Send/MPI_Recv, MPI_Sendrecv
 * (with MPI_PROC_NULL at the domain ends), MPI_Bcast, MPI_Scatterv, MPI_Gatherv, MPI_Allreduce,
 * MPI_Reduce, MPI_Barrier, MPI_Wtime. Rank 0 prints one line per outer iteration and a final
 * line; the output is deterministic for a given rank count.
 *
 * usage: ring [n_global [outer_iters [sweeps_per_iter]]]   (--timing prints the run time to stderr)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_TOKEN = 7 };

/* Block distribution of n items over p ranks: the first n % p ranks get one extra. */
static int block_count(int n, int p, int r) { return n / p + (r < n % p ? 1 : 0); }
static int block_start(int n, int p, int r) { return r * (n / p) + (r < n % p ? r : n % p); }

/* Pass a token around the ring `laps` times; every rank adds rank+1 on each visit.
 * Send/Recv needs a real neighbour, so a single rank falls back to a Sendrecv with itself. */
static long ring_pass(int rank, int size, int laps) {
  long token = 0;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int lap = 0; lap < laps; ++lap) {
    if (size == 1) {
      long out = token + 1;
      MPI_Sendrecv(&out, 1, MPI_LONG, 0, TAG_TOKEN, &token, 1, MPI_LONG, 0, TAG_TOKEN, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    } else if (rank == 0) {
      token += 1;
      MPI_Send(&token, 1, MPI_LONG, next, TAG_TOKEN, MPI_COMM_WORLD);
      MPI_Status st;
      MPI_Recv(&token, 1, MPI_LONG, prev, TAG_TOKEN, MPI_COMM_WORLD, &st);
      if (st.MPI_SOURCE != prev || st.MPI_TAG != TAG_TOKEN) {
        fprintf(stderr, "ring: bad status source=%d tag=%d\n", st.MPI_SOURCE, st.MPI_TAG);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
    } else {
      MPI_Recv(&token, 1, MPI_LONG, prev, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token += rank + 1;
      MPI_Send(&token, 1, MPI_LONG, next, TAG_TOKEN, MPI_COMM_WORLD);
    }
  }
  /* Only rank 0 holds the finished token; share it so every rank can check it. */
  MPI_Bcast(&token, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return token;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* Rank 0 owns the command line; the others learn the parameters by broadcast. */
  int params[4] = {4000, 12, 5, 0}; /* n, outer iterations, sweeps per iteration, timing */
  if (rank == 0) {
    int pos = 0;
    for (int i = 1; i < argc; ++i) {
      if (strcmp(argv[i], "--timing") == 0)
        params[3] = 1;
      else if (pos < 3)
        params[pos++] = atoi(argv[i]);
    }
    if (params[0] < size || params[1] < 1 || params[2] < 1) {
      fprintf(stderr, "ring: need n >= ranks, iters >= 1, sweeps >= 1\n");
      params[0] = -1;
    }
  }
  MPI_Bcast(params, 4, MPI_INT, 0, MPI_COMM_WORLD);
  if (params[0] < 0) {
    MPI_Finalize();
    return 1;
  }
  const int n = params[0], iters = params[1], sweeps = params[2];

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();

  const long token = ring_pass(rank, size, 3);
  /* Each lap adds 1 + 2 + ... + size. */
  const long expect = 3L * size * (size + 1) / 2;
  if (rank == 0) printf("ring token %ld expected %ld\n", token, expect);

  /* Rank 0 builds the right-hand side f(i) and scatters the blocks. */
  const int nl = block_count(n, size, rank);
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
  for (int r = 0; r < size; ++r) {
    counts[r] = block_count(n, size, r);
    displs[r] = block_start(n, size, r);
  }
  double* fglob = NULL;
  if (rank == 0) {
    fglob = malloc(sizeof(double) * n);
    for (int i = 0; i < n; ++i) fglob[i] = 1.0 + (double)(i % 17) / 16.0;
  }
  double* f = malloc(sizeof(double) * nl);
  MPI_Scatterv(fglob, counts, displs, MPI_DOUBLE, f, nl, MPI_DOUBLE, 0, MPI_COMM_WORLD);

  /* Jacobi for (2.1 u_i - u_{i-1} - u_{i+1}) = f_i with u = 0 outside [0, n):
     * u[0] and u[nl+1] are halo cells, left at 0 at the global ends (MPI_PROC_NULL). */
  double *u = calloc(nl + 2, sizeof(double)), *unew = calloc(nl + 2, sizeof(double));
  const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  const double diag = 2.1;
  double resid = 0.0;
  for (int it = 1; it <= iters; ++it) {
    for (int s = 0; s < sweeps; ++s) {
      MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[nl + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      MPI_Sendrecv(&u[nl], 1, MPI_DOUBLE, right, 2, &u[0], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int i = 1; i <= nl; ++i) unew[i] = (f[i - 1] + u[i - 1] + u[i + 1]) / diag;
      double* tmp = u;
      u = unew;
      unew = tmp;
    }
    /* Residual ||f - A u||^2 needs fresh halos of the current u. */
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 3, &u[nl + 1], 1, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[nl], 1, MPI_DOUBLE, right, 4, &u[0], 1, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double local[2] = {0.0, 0.0}; /* residual^2, sum of u */
    for (int i = 1; i <= nl; ++i) {
      const double r = f[i - 1] - (diag * u[i] - u[i - 1] - u[i + 1]);
      local[0] += r * r;
      local[1] += u[i];
    }
    double global[2];
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    resid = global[0];
    if (rank == 0) printf("iter %d residual %.15e checksum %.15e\n", it, resid, global[1]);
  }

  /* Final: a position-weighted sum over the gathered vector, computed in global index order on
     * rank 0 (independent of the rank count), and the same via MPI_Reduce (order may vary). */
  double* uglob = rank == 0 ? malloc(sizeof(double) * n) : NULL;
  MPI_Gatherv(&u[1], nl, MPI_DOUBLE, uglob, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const int start = block_start(n, size, rank);
  double wlocal = 0.0, wsum = 0.0;
  for (int i = 1; i <= nl; ++i) wlocal += (double)(start + i) * u[i];
  MPI_Reduce(&wlocal, &wsum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

  MPI_Barrier(MPI_COMM_WORLD);
  const double elapsed = MPI_Wtime() - t0;
  if (rank == 0) {
    double ordered = 0.0;
    for (int i = 0; i < n; ++i) ordered += (double)(i + 1) * uglob[i];
    printf("weighted reduce %.15e\n", wsum);
    printf("final %.15e\n", ordered);
    if (params[3]) fprintf(stderr, "ring: %.3f s\n", elapsed);
  }

  free(uglob);
  free(u);
  free(unew);
  free(f);
  free(fglob);
  free(counts);
  free(displs);
  MPI_Finalize();
  return token == expect ? 0 : 3;
}
