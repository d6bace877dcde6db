/* pingpong: 2 ranks bounce a message back and forth; used by the simulated-cluster tests to see
 * which transport the MPI library picks (shared memory on one node, TCP between nodes).
 * usage: pingpong [rounds [bytes]]   default 100 rounds of 1024 bytes. Prints one line on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 100;
  const int bytes = argc > 2 ? atoi(argv[2]) : 1024;
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "pingpong: needs exactly 2 ranks, got %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char* buffer = calloc((size_t)bytes, 1);
  char host[MPI_MAX_PROCESSOR_NAME];
  int host_len = 0;
  MPI_Get_processor_name(host, &host_len);
  const int peer = 1 - rank;
  for (int i = 0; i < rounds; ++i) {
    if (rank == 0) {
      buffer[0] = (char)i;
      MPI_Send(buffer, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(buffer, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (buffer[0] != (char)(i + 1)) {
        fprintf(stderr, "pingpong: round %d: got %d\n", i, buffer[0]);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
    } else {
      MPI_Recv(buffer, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      buffer[0] = (char)(buffer[0] + 1);
      MPI_Send(buffer, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
    }
  }
  char peer_host[MPI_MAX_PROCESSOR_NAME];
  MPI_Sendrecv(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, peer, 2, peer_host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, peer, 2,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 0) printf("pingpong ok: %d rounds of %d bytes between %s and %s\n", rounds, bytes, host, peer_host);
  free(buffer);
  MPI_Finalize();
  return 0;
}
