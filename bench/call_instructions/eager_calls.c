/* Instructions per MPI call when nothing has to wait: the calls a checkpoint-ready (armed) shim
 * wraps in its ready path, counted by callgrind (bench/call_instructions/run.sh), not timed.
 *
 *   eager_calls [--rounds R] [--burst K]
 *
 * Two ranks. Each round: rank 0 sends K 8-byte (eager) messages, both ranks meet in a barrier, and
 * only then does rank 1 receive them, so every receive finds its message there and every send
 * completes while it is posted: what is counted is the calls' own path, never a wait for the peer
 * (which on a loaded machine would count polls, not cost). Four kinds of rounds:
 *   send / recv       MPI_Send by rank 0, MPI_Recv by rank 1
 *   isend + wait      MPI_Isend then MPI_Wait by rank 0 (a send complete when posted)
 *   irecv + wait      MPI_Irecv then MPI_Wait by rank 1 (the message already arrived)
 *   irecv x2+waitall  two MPI_Irecv then MPI_Waitall by rank 1
 * Every counted call is made from its own non-inlined function (yk_count_send, yk_count_recv,
 * yk_count_wait_send, yk_count_wait_recv, yk_count_waitall), so that the driver reads the
 * inclusive cost of the call as the application sees it, whichever library or shim answers it.
 * Prints one line: the number of calls of each kind (R*K; R*K/2 for waitall), checked by the driver.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE void yk_count_send(const double* v, int dest) { MPI_Send(v, 1, MPI_DOUBLE, dest, 7, MPI_COMM_WORLD); }
NOINLINE void yk_count_recv(double* v, int source) {
  MPI_Recv(v, 1, MPI_DOUBLE, source, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
NOINLINE void yk_count_wait_send(MPI_Request* r) { MPI_Wait(r, MPI_STATUS_IGNORE); }
NOINLINE void yk_count_wait_recv(MPI_Request* r, MPI_Status* s) { MPI_Wait(r, s); }
NOINLINE void yk_count_waitall(MPI_Request* r, MPI_Status* s) { MPI_Waitall(2, r, s); }

static int whole(const char* text, const char* name) {
  char* end = NULL;
  const long v = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 1 || v > 1000000) {
    fprintf(stderr, "eager_calls: %s needs a whole number from 1 to 1000000, got '%s'\n", name, text);
    exit(2);
  }
  return (int)v;
}

int main(int argc, char** argv) {
  int rounds = 200, burst = 20;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
      rounds = whole(argv[++i], "--rounds");
    else if (strcmp(argv[i], "--burst") == 0 && i + 1 < argc)
      burst = whole(argv[++i], "--burst");
    else {
      fprintf(stderr, "usage: eager_calls [--rounds R] [--burst K]\n");
      return 2;
    }
  }
  if (burst % 2 != 0) ++burst; /* waitall takes them in pairs */
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "eager_calls: needs exactly 2 ranks, got %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double v = 1.0, sum = 0.0;
  MPI_Request r[2];
  MPI_Status st[2];
  for (int round = 0; round < rounds; ++round) {
    /* send / recv */
    if (rank == 0)
      for (int k = 0; k < burst; ++k) yk_count_send(&v, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
      for (int k = 0; k < burst; ++k) {
        yk_count_recv(&v, 0);
        sum += v;
      }
    /* isend + wait, then irecv + wait */
    if (rank == 0)
      for (int k = 0; k < burst; ++k) {
        MPI_Isend(&v, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, &r[0]);
        yk_count_wait_send(&r[0]);
      }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
      for (int k = 0; k < burst; ++k) {
        MPI_Irecv(&v, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &r[0]);
        yk_count_wait_recv(&r[0], &st[0]);
        sum += v;
      }
    /* irecv x2 + waitall */
    if (rank == 0)
      for (int k = 0; k < burst; ++k) MPI_Send(&v, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
      for (int k = 0; k < burst; k += 2) {
        double two[2];
        MPI_Irecv(&two[0], 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&two[1], 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &r[1]);
        yk_count_waitall(r, st);
        sum += two[0] + two[1];
      }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  /* Three bursts of messages of 1.0 per round. */
  if (rank == 1 && sum != 3.0 * rounds * burst) {
    fprintf(stderr, "eager_calls: received sum %.0f, expected %.0f\n", sum, 3.0 * rounds * burst);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0)
    printf(
        "{\"bench\":\"eager_calls\",\"calls\":{\"send\":%d,\"recv\":%d,\"wait_send\":%d,\"wait_recv\":%d,\"waitall\":%"
        "d}}\n",
        rounds * burst, rounds * burst, rounds * burst, rounds * burst, rounds * burst / 2);
  MPI_Finalize();
  return 0;
}
