#include "cut/interruptible.hpp"

#include "cut/cut_protocol.hpp"
#include "cut/lifecycle.hpp"
#include "shim/slow_path.hpp"

#include <sched.h>

namespace yk {
namespace {

// The shim's own exported wrappers (MPI_Test...) do the bookkeeping: virtual requests, channel
// counts, drained messages; nested inside the blocking call's scope they are no boundaries.
// Between polls: the checkpoint request, and the processor. Jobs often run more ranks than
// cores (the libraries' own blocking waits then yield); a poll loop that never yields would
// take whole time slices from the very peer it waits for.
class Poller {
 public:
  void between_polls() {
    if (g_cut_requested.load(std::memory_order_relaxed)) [[unlikely]]
      cut_boundary();
    if (++polls_ >= kSpinsBeforeYield) sched_yield();
  }

 private:
  static constexpr unsigned kSpinsBeforeYield = 64;
  unsigned polls_ = 0;
};

template <class Post>
int send_and_poll(Post post) {
  MPI_Request request;
  const int rc = post(&request);
  if (rc != MPI_SUCCESS) return rc;
  return interruptible_wait(&request, MPI_STATUS_IGNORE);
}

}  // namespace

int interruptible_wait(MPI_Request* request, MPI_Status* status) {
  Poller poller;
  for (;;) {
    int flag = 0;
    const int rc = MPI_Test(request, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    poller.between_polls();
  }
}

int interruptible_waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  Poller poller;
  for (;;) {
    int flag = 0;
    const int rc = MPI_Testall(count, requests, &flag, statuses);
    if (rc != MPI_SUCCESS || flag) return rc;
    poller.between_polls();
  }
}

int interruptible_waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  Poller poller;
  for (;;) {
    int flag = 0;
    const int rc = MPI_Testany(count, requests, index, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    poller.between_polls();
  }
}

int interruptible_waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  Poller poller;
  for (;;) {
    const int rc = MPI_Testsome(incount, requests, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;  // MPI_UNDEFINED (no active request) ends too
    poller.between_polls();
  }
}

int interruptible_send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_and_poll([&](MPI_Request* r) { return MPI_Isend(buf, count, datatype, dest, tag, comm, r); });
}
int interruptible_ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_and_poll([&](MPI_Request* r) { return MPI_Issend(buf, count, datatype, dest, tag, comm, r); });
}
int interruptible_bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_and_poll([&](MPI_Request* r) { return MPI_Ibsend(buf, count, datatype, dest, tag, comm, r); });
}
int interruptible_rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_and_poll([&](MPI_Request* r) { return MPI_Irsend(buf, count, datatype, dest, tag, comm, r); });
}

int interruptible_recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Status* status) {
  MPI_Request request;
  const int rc = MPI_Irecv(buf, count, datatype, source, tag, comm, &request);
  if (rc != MPI_SUCCESS) return rc;
  return interruptible_wait(&request, status);
}

int interruptible_sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                           MPI_Status* status) {
  MPI_Request requests[2];
  int rc = MPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &requests[0]);
  if (rc != MPI_SUCCESS) return rc;
  rc = MPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &requests[1]);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Status statuses[2];
  rc = interruptible_waitall(2, requests, statuses);
  if (status != MPI_STATUS_IGNORE) *status = statuses[0];
  return rc;
}

int interruptible_probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  Poller poller;
  for (;;) {
    int flag = 0;
    const int rc = MPI_Iprobe(source, tag, comm, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    poller.between_polls();
  }
}

void cut::enable_checkpoints(bool on) {
  g_interruptible = on;
  set_slow_path(kSlowInterruptible, on);  // blocking calls must poll: the slow wrappers
}

const BlockingWaits& cut::polling_waits() {
  static constexpr BlockingWaits kPolling{interruptible_wait, interruptible_waitall, interruptible_waitany,
                                          interruptible_waitsome};
  return kPolling;
}

}  // namespace yk
