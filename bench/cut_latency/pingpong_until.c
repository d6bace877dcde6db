/* The application of bench/cut_latency.sh: ranks that spend their time in blocking point-to-point
 * calls, where a checkpoint request finds them. Usage: pingpong_until (YK_BENCH_READY=<path> set).
 * Ranks pair up (0-1, 2-3, ...; an odd last rank only joins the checks) and ping-pong 8 bytes with
 * MPI_Send/MPI_Recv, every fourth round trip with MPI_Irecv/MPI_Isend/MPI_Waitall instead. Rank 0
 * creates <path> once running; every 2000 round trips the ranks agree (MPI_Allreduce) whether
 * <path>.done exists, and end when it does. Checks the payload: exit 1 on a wrong value. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* ready = getenv("YK_BENCH_READY");
  if (!ready) {
    if (rank == 0) fprintf(stderr, "pingpong_until: set YK_BENCH_READY\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char done[4096];
  snprintf(done, sizeof done, "%s.done", ready);
  const int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
  const int paired = peer < size;
  if (rank == 0) {
    FILE* f = fopen(ready, "w");
    if (f) fclose(f);
  }
  long trips = 0;
  int bad = 0;
  for (int stop = 0; !stop;) {
    for (int i = 0; i < 2000 && paired; ++i, ++trips) {
      double out = (double)trips, in = -1.0;
      if (i % 4 == 3) {
        MPI_Request r[2];
        MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: GCC 12 flags MPICH's as a zero-size array */
        MPI_Irecv(&in, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&out, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, st);
      } else if (rank % 2 == 0) {
        MPI_Send(&out, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
        MPI_Recv(&in, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&in, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&out, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
      }
      bad |= in != out;
    }
    int here = rank == 0 && access(done, F_OK) == 0;
    MPI_Allreduce(&here, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  }
  if (bad) fprintf(stderr, "pingpong_until: rank %d received a wrong value\n", rank);
  MPI_Finalize();
  return bad;
}
