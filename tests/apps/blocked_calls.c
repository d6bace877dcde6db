/* A checkpoint while ranks are blocked inside MPI calls (tests/apps/README.md): with checkpointing
 * on, blocking calls wait on the library's own request until a cut is requested, then on a
 * request the cut knows (pmpi-layer/src/cut/interruptible.cpp). At the pause point rank 0 stays
 * in a loop of MPI_Iprobe (a boundary: it parks there) while the others wait for it: rank 1 in
 * MPI_Recv, rank 2 in MPI_Wait on an MPI_Irecv, rank 3 in MPI_Ssend, each having told rank 0 just
 * before it blocked. The checkpoint must stop all of them there, and after the restart each
 * call must complete with what rank 0 sends (or receives) once the pause is over. Needs 4 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { kReady = 50, kToOne = 1, kToTwo = 2, kFromThree = 3 };

/* Rank 0's pause: everyone else is blocked (they said so), so it must not enter a collective. */
static void pause_in_iprobe(void) {
  const char* go = getenv("YK_APP_PAUSE");
  if (!go || !*go) return;
  char reached[4096];
  snprintf(reached, sizeof reached, "%s.reached", go);
  FILE* f = fopen(reached, "w");
  if (f) fclose(f);
  while (access(go, F_OK) != 0) {
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    nanosleep(&ten_ms, NULL);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 4) MPI_Abort(MPI_COMM_WORLD, 2);
  double value = 1.0 + rank, got = 0;
  int ready = 1;
  if (rank == 0) {
    for (int peer = 1; peer < size; ++peer)
      MPI_Recv(&ready, 1, MPI_INT, peer, kReady, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    pause_in_iprobe();
    double one = 10.5, two = 20.25, three = 0;
    MPI_Send(&one, 1, MPI_DOUBLE, 1, kToOne, MPI_COMM_WORLD);
    MPI_Send(&two, 1, MPI_DOUBLE, 2, kToTwo, MPI_COMM_WORLD);
    MPI_Recv(&three, 1, MPI_DOUBLE, 3, kFromThree, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    got = three;
  } else if (rank == 1) {
    MPI_Send(&ready, 1, MPI_INT, 0, kReady, MPI_COMM_WORLD);
    MPI_Recv(&got, 1, MPI_DOUBLE, 0, kToOne, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 2) {
    MPI_Request request;
    MPI_Irecv(&got, 1, MPI_DOUBLE, 0, kToTwo, MPI_COMM_WORLD, &request);
    MPI_Send(&ready, 1, MPI_INT, 0, kReady, MPI_COMM_WORLD);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    MPI_Send(&ready, 1, MPI_INT, 0, kReady, MPI_COMM_WORLD);
    double three = 30.125;
    MPI_Ssend(&three, 1, MPI_DOUBLE, 0, kFromThree, MPI_COMM_WORLD);
    got = three * 2;
  }
  double all[4];
  MPI_Gather(&got, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  value += got;
  double total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("received %.17g %.17g %.17g %.17g total %.17g\n", all[0], all[1], all[2], all[3], total);
  MPI_Finalize();
  return 0;
}
