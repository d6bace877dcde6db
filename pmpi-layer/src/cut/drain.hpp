// The point-to-point half of the consistent cut. At a point where every rank is in the shim and
// no rank is inside a collective, the ranks compare how many messages each sent to each other
// with how many arrived; everything still in flight is received into shim buffers ("drained"),
// and the receive-side wrappers deliver drained messages before anything from the library, in
// the order they were drained (which keeps MPI's non-overtaking order per sender).
#pragma once

#include "pmpi-layer/src/cut/cut_state.hpp"
#include "pmpi-layer/src/objects/records.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace yadokari::shim {

// Returned by the redeliver_* functions when no drained message matches: the wrapper goes on
// to the library. (MPI error codes are never negative.)
inline constexpr int kNotDrained = -1;

// Drained messages not yet delivered (g_drained_pending, cut_state.hpp), and shim-completed
// requests not yet waited for (g_shim_completed_requests, objects/object_state.hpp): the receive
// and completion wrappers look at anything else only when these are non-zero.

// Collective over the virtual world: every rank must call it at the same point.
int consistent_cut();

// A message taken from the library at a cut and not delivered to the app yet: part of the
// shim's state at a checkpoint (shim_state.cpp). Kept in the order drained.
struct DrainedMessage {
  MPI_Comm comm;  // virtual (MPI_COMM_WORLD for the virtual world)
  int source;
  int tag;
  std::vector<char> bytes;
};
std::deque<DrainedMessage>& drained_messages();

int redeliver_recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status);
int redeliver_irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Request* request);
// A receive request (a persistent one started, or one posted again after a restart) that a
// drained message matches takes it now: the request is completed by the shim (its status kept for
// the app's Wait/Test) and the library never sees the message. False when none matches.
bool complete_from_drained(RequestRecord& r);
int redeliver_probe(int source, int tag, MPI_Comm comm, MPI_Status* status);
int redeliver_iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status);
int redeliver_sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                       MPI_Status* status);
// Receive paths that do not take drained messages yet: stop clearly rather than deliver out of order.
int refuse_if_drained(MPI_Comm comm, const char* function);

}  // namespace yadokari::shim
