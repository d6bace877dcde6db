// Blocking calls that a checkpoint can stop (docs/architecture.md §3): with checkpoints on, the
// blocking wrappers post the non-blocking form and poll it, looking at the checkpoint request
// between polls, so a rank waiting in MPI_Recv for a rank that already parked parks as well
// instead of deadlocking the cut. While no cut is requested they poll the library's own request
// (PMPI_Test, PMPI_Request_get_status), which costs about what the library's blocking call does;
// once one is, the pending operation is held as a virtual request, which the cut drains and
// which stays valid across a restart (the library's requests are re-posted by then). How they
// wait meanwhile: core/idle_policy.hpp. Called by the generated wrappers from their fast path
// (inside its scope) when checkpoints are on, and from the slow wrapper when anything else is
// special: both are the call's outermost scope, so the polls are boundaries of the cut.
#pragma once

#include <mpi.h>

namespace yadokari::shim {

int interruptible_send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int interruptible_ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int interruptible_bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int interruptible_rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int interruptible_recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Status* status);
int interruptible_sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                           MPI_Status* status);
int interruptible_probe(int source, int tag, MPI_Comm comm, MPI_Status* status);
int interruptible_wait(MPI_Request* request, MPI_Status* status);
int interruptible_waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int interruptible_waitany(int count, MPI_Request requests[], int* index, MPI_Status* status);
int interruptible_waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]);

}  // namespace yadokari::shim
