/* The least a PMPI interposer that keeps call counts can do: the reference against which the
 * shim's own overhead is judged (run.sh --via minimal). It wraps exactly the three calls the
 * microbenchmark times, calls the library through its PMPI_ name and counts the call after it
 * returns, as any tool that counts completed calls must. What a ping-pong loses under this library
 * is the cost of interposition itself (one more call and return per MPI call), which no shim can
 * avoid; what the yadokari shim adds beyond it is its own work (handle translation, the channel
 * table, the "current call" marker).
 *
 * At MPI_Finalize it proves it was loaded the way run.sh checks the shim: with YADOKARI_STATS set
 * it writes one file per process into that directory. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned long g_calls[3];

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  int rc = PMPI_Send(buf, count, datatype, dest, tag, comm);
  ++g_calls[0];
  return rc;
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  int rc = PMPI_Recv(buf, count, datatype, source, tag, comm, status);
  ++g_calls[1];
  return rc;
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  int rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  ++g_calls[2];
  return rc;
}

int MPI_Finalize(void) {
  const char* dir = getenv("YADOKARI_STATS");
  if (dir && *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/minimal-interposer.%ld.json", dir, (long)getpid());
    FILE* f = fopen(path, "w");
    if (f) {
      fprintf(f, "{\"MPI_Send\":%lu,\"MPI_Recv\":%lu,\"MPI_Allreduce\":%lu}\n", g_calls[0], g_calls[1], g_calls[2]);
      fclose(f);
    }
  }
  return PMPI_Finalize();
}
