#include "pmpi-layer/src/cut/interruptible.hpp"

#include "pmpi-layer/src/core/idle_policy.hpp"
#include "pmpi-layer/src/cut/cut_protocol.hpp"
#include "pmpi-layer/src/cut/lifecycle.hpp"
#include "pmpi-layer/src/objects/channel_hooks.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/objects/object_state.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"

#if defined(OPEN_MPI)
#include "pmpi-layer/src/cut/open_mpi_requests.h"
#endif

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace yadokari::shim {
namespace {

IdlePolicy g_idle = idle_policy(0, 0);  // set by cut::enable_checkpoints()
// The library's handle of a send complete when posted (learn_sent_when_posted), or MPI_REQUEST_NULL.
MPI_Request g_sent_when_posted = MPI_REQUEST_NULL;

// Between two idle polls: the processor, by the idle policy (core/idle_policy.hpp).
class Idler {
 public:
  void idle() {
    if (g_idle.library_yields) return;  // the poll's own progress yielded if it found nothing
    if (polls_ < g_idle.polls_before_yield)
      ++polls_;
    else
      sched_yield();
  }

 private:
  unsigned polls_ = 0;
};

// The waits that stop for a cut: the shim's own exported wrappers (MPI_Test...) do the
// bookkeeping (virtual requests, channel counts, drained messages); nested inside the blocking
// call's scope they are no boundaries. Between polls: the checkpoint request, then the processor.
class Poller {
 public:
  explicit Poller(Idler& idler) : idler_(idler) {}
  void between_polls() {
    if (g_cut_requested.load(std::memory_order_relaxed)) [[unlikely]]
      cut_boundary();
    idler_.idle();
  }

 private:
  Idler& idler_;
};

bool cut_requested() { return g_cut_requested.load(std::memory_order_relaxed); }

// --- The ready path: what a blocking call costs while no cut is requested.
// The common case, no cut in progress, polls the library's own requests with PMPI_Test: no
// virtual request, no nested wrapper per poll, no yield unless the idle policy says so. The
// moment a cut is requested while the operation is pending, it becomes one of the app's requests
// exactly as MPI_Isend/MPI_Irecv would have made it (counted, re-postable), and the wait goes on
// in the polling waits above, which take part in the cut. Nothing is pending in the library
// that the shim's tables do not know when the cut looks. Drained messages waiting (delivered by
// the wrappers before anything from the library) take the polling waits from the start.

// MPI_Request_get_status's look at the library's request `real` (active, not MPI_REQUEST_NULL):
// complete now, or after one turn of progress. False when the library could not say.
YK_HOT bool look_at(MPI_Request real, int& flag) {
#if defined(OPEN_MPI)
  if (g_direct_requests) [[likely]] {
    flag = yk_ompi_request_done(real);
    if (!flag) {
      yk_ompi_progress();
      flag = yk_ompi_request_done(real);
    }
    return true;
  }
#endif
  return PMPI_Request_get_status(real, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS;
}

// One look at the library's request `real`: true when it completed (then `rc` is the library's
// answer and `*real` is freed, as MPI_Test leaves it) or the look failed. Open MPI's MPI_Test
// progresses only while the request is pending. MPICH's MPI_Test runs its progress engine first,
// even for a request that is already complete (a few hundred instructions, on every receive whose
// message had arrived), and polled it made a waiting receive 17-22 ns slower per ping-pong half
// round trip than MPI_Request_get_status in the benchmark's in-process rows (within the noise at
// launch level; bench/results/2026-12-07/NOTES.md). get_status progresses only a pending request,
// and MPI_Wait returns a complete one without progressing: the cheaper pair, on every look.
YK_HOT bool library_done(MPI_Request* real, MPI_Status* status, int& rc) {
  int flag = 0;
#if defined(OPEN_MPI)
  if (g_direct_requests) [[likely]] {  // MPI_Test without the public call: the look, then finish
    look_at(*real, flag);
    if (!flag) return false;
    rc = yk_ompi_finish_request(real, status);
    return true;
  }
  rc = PMPI_Test(real, &flag, status);
  return rc != MPI_SUCCESS || flag;
#else
  rc = PMPI_Request_get_status(*real, &flag, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return true;
  if (flag) rc = PMPI_Wait(real, status);
  return flag;
#endif
}

// Polls the library's request `real` until it completes (true: `rc` is the library's answer) or
// a cut is requested (false: still pending). Inlined: it is the receive's critical path.
YK_HOT bool poll_library(MPI_Request* real, MPI_Status* status, Idler& idler, int& rc) {
  for (;;) {
    if (library_done(real, status, rc)) return true;
    if (cut_requested()) [[unlikely]]
      return false;
    idler.idle();
  }
}

// The library's receive for a blocking MPI_Recv: on Open MPI below the public MPI_Irecv when it
// can (its checks kept; the public call takes what they would reject).
YK_HOT int post_receive(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                        MPI_Request* real) {
#if defined(OPEN_MPI)
  if (g_direct_requests) [[likely]] {
    const int rc = yk_ompi_post_receive(buf, count, type, source, tag, comm, real);
    if (rc != YK_OMPI_ASK_LIBRARY) [[likely]]
      return rc;
  }
#endif
  return PMPI_Irecv(buf, count, type, source, tag, comm, real);
}

using PostSend = int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);

// A blocking send: posted on the library's handles, counted once complete like the plain
// wrapper; handed to the app's requests if a cut comes first (track_send counts it then). A send
// the library completed while posting it (the common small message) needs no poll at all.
// A template, so that the post is a direct call.
template <PostSend post, PostSend post_tracked>
int send_ready(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  if (g_drained_pending == 0) [[likely]] {
    CommK::entry* const entry = find_entry<CommK>(comm);
    MPI_Request real;
    int rc = post(buf, count, to_real<TypeK>(datatype), dest, tag, real_of(entry, comm), &real);
    if (rc != MPI_SUCCESS) return rc;
    if (real == g_sent_when_posted) [[likely]] {
      on_send(entry, count, datatype, dest);
      return MPI_SUCCESS;
    }
    Idler idler;
    if (poll_library(&real, MPI_STATUS_IGNORE, idler, rc)) {
      if (rc == MPI_SUCCESS) [[likely]]
        on_send(entry, count, datatype, dest);
      return rc;
    }
    MPI_Request request = track_send(real, count, datatype, dest, comm, entry, false);
    return interruptible_wait(&request, MPI_STATUS_IGNORE);
  }
  MPI_Request request;
  const int rc = post_tracked(buf, count, datatype, dest, tag, comm, &request);
  if (rc != MPI_SUCCESS) return rc;
  return interruptible_wait(&request, MPI_STATUS_IGNORE);
}

// Waits until the library says the app's request `*request` is complete (true), or a cut is
// requested or the library cannot say (false), without completing it. True: the library's wait
// returns at once, and objects' library_wait* does the bookkeeping (no nested MPI_Test). False:
// the polling wait decides. Not for requests the shim completed itself (the library has nothing
// behind them), nor with drained messages waiting (they come first).
bool until_ready(const MPI_Request* request, Idler& idler) {
  if (g_shim_completed_requests != 0 || g_drained_pending != 0 || !codec::is_virtual(*request)) return false;
  const MPI_Request real = to_real<ReqK>(*request);
  if (real == MPI_REQUEST_NULL) return false;  // an inactive persistent request: the polling wait decides
  for (;;) {
    int flag = 0;
    if (!look_at(real, flag)) return false;
    if (flag) return true;
    if (cut_requested()) return false;
    idler.idle();
  }
}

// The same for arrays: until all (`all`) or any of the app's requests are complete. Arrays above
// kMaxReady go straight to the polling wait (no allocation here), as do arrays with no request
// the library holds (the polling wait gives the answer MPI gives for those).
bool until_ready(int count, const MPI_Request requests[], bool all, Idler& idler) {
  constexpr int kMaxReady = 32;
  if (g_shim_completed_requests != 0 || g_drained_pending != 0 || count <= 0 || count > kMaxReady) return false;
  MPI_Request reals[kMaxReady];
  int pending = 0;
  for (int i = 0; i < count; ++i) {
    if (!codec::is_virtual(requests[i])) continue;  // MPI_REQUEST_NULL: nothing to wait for
    const MPI_Request real = to_real<ReqK>(requests[i]);
    if (real == MPI_REQUEST_NULL) return false;  // an inactive persistent request: the polling wait decides
    reals[pending++] = real;
  }
  if (pending == 0) return false;
  for (;;) {
    int done = 0;
    for (int i = 0; i < pending; ++i) {
      int flag = 0;
      if (!look_at(reals[i], flag)) return false;
      if (flag) {
        if (!all) return true;
        reals[i--] = reals[--pending];  // complete: look at the others only
        ++done;
      }
    }
    if (pending == 0) return true;
    if (cut_requested()) return false;
    if (done == 0) idler.idle();
  }
}

}  // namespace

int interruptible_wait(MPI_Request* request, MPI_Status* status) {
  Idler idler;
  if (until_ready(request, idler)) return library_wait(request, status);
  Poller poller(idler);
  for (;;) {
    int flag = 0;
    const int rc = MPI_Test(request, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    poller.between_polls();
  }
}

int interruptible_waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  Idler idler;
  if (until_ready(count, requests, true, idler)) return library_waitall(count, requests, statuses);
  Poller poller(idler);
  for (;;) {
    int flag = 0;
    const int rc = MPI_Testall(count, requests, &flag, statuses);
    if (rc != MPI_SUCCESS || flag) return rc;
    poller.between_polls();
  }
}

int interruptible_waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  Idler idler;
  if (until_ready(count, requests, false, idler)) return library_waitany(count, requests, index, status);
  Poller poller(idler);
  for (;;) {
    int flag = 0;
    const int rc = MPI_Testany(count, requests, index, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    poller.between_polls();
  }
}

int interruptible_waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  Idler idler;
  if (until_ready(incount, requests, false, idler))
    return library_waitsome(incount, requests, outcount, indices, statuses);
  Poller poller(idler);
  for (;;) {
    const int rc = MPI_Testsome(incount, requests, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;  // MPI_UNDEFINED (no active request) ends too
    poller.between_polls();
  }
}

int interruptible_send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_ready<PMPI_Isend, MPI_Isend>(buf, count, datatype, dest, tag, comm);
}
int interruptible_ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_ready<PMPI_Issend, MPI_Issend>(buf, count, datatype, dest, tag, comm);
}
int interruptible_bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_ready<PMPI_Ibsend, MPI_Ibsend>(buf, count, datatype, dest, tag, comm);
}
int interruptible_rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_ready<PMPI_Irsend, MPI_Irsend>(buf, count, datatype, dest, tag, comm);
}

// A blocking receive from MPI_PROC_NULL completes at once, with the status MPI defines (source
// MPI_PROC_NULL, tag MPI_ANY_TAG, count 0): the library's blocking call gives it without waiting.
// Not its non-blocking one: MPICH 4.0's MPI_Irecv from MPI_PROC_NULL completes with source 0 and
// tag 0 (docs/platform.md §1), which the application would then see only with checkpoints on.
namespace {
int receive_from_nobody(void* buf, int count, MPI_Datatype datatype, int tag, MPI_Comm comm, MPI_Status* status) {
  return PMPI_Recv(buf, count, to_real<TypeK>(datatype), MPI_PROC_NULL, tag, real_of(find_entry<CommK>(comm), comm),
                   status);
}
}  // namespace

// A blocking receive: the same as send_ready; a cut makes it the re-postable receive MPI_Irecv
// would have made (track_receive), so the drain sees it and a restart posts it again.
// The channel is looked up before the post, as on the wrapper's fast path (channel_hooks.hpp):
// once the message is there, only the counters are touched.
int interruptible_recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Status* status) {
  if (source == MPI_PROC_NULL) [[unlikely]]
    return receive_from_nobody(buf, count, datatype, tag, comm, status);
  if (g_drained_pending == 0) [[likely]] {
    CommK::entry* const entry = find_entry<CommK>(comm);
    const ReceiveTally tally = prepare_receive(entry, source);
    MPI_Request real;
    int rc = post_receive(buf, count, to_real<TypeK>(datatype), source, tag, real_of(entry, comm), &real);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Status local;
    MPI_Status* const st = status == MPI_STATUS_IGNORE ? &local : status;
    Idler idler;
    if (poll_library(&real, st, idler, rc)) {
      if (rc == MPI_SUCCESS) [[likely]]
        tally.commit(st, false);
      return rc;
    }
    MPI_Request request = track_receive(real, buf, count, datatype, source, tag, comm, false);
    return interruptible_wait(&request, status);
  }
  MPI_Request request;
  const int rc = MPI_Irecv(buf, count, datatype, source, tag, comm, &request);
  if (rc != MPI_SUCCESS) return rc;
  return interruptible_wait(&request, status);
}

int interruptible_sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                           MPI_Status* status) {
  if (source == MPI_PROC_NULL) [[unlikely]] {  // only the send can wait
    const int rc = interruptible_send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
    if (rc != MPI_SUCCESS) return rc;
    return receive_from_nobody(recvbuf, recvcount, recvtype, recvtag, comm, status);
  }
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
  Idler idler;
  Poller poller(idler);
  for (;;) {
    int flag = 0;
    const int rc = MPI_Iprobe(source, tag, comm, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    poller.between_polls();
  }
}

namespace {

// The node's rank count from the launcher's environment, its CPUs from the kernel.
IdlePolicy this_node_policy() {
  const char* open_mpi = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const char* hydra = std::getenv("MPI_LOCALNRANKS");
  return idle_policy(local_ranks_from(open_mpi ? open_mpi : "", hydra ? hydra : ""), sysconf(_SC_NPROCESSORS_ONLN));
}

// The handle both MPIs give every send that completed while it was posted (Open MPI's
// ompi_request_empty, MPICH's builtin complete request; ob1 sends small messages inline, UCX
// injects them), learned from two sends to MPI_PROC_NULL, which MPI completes at once: only a
// handle that both hold at the same time, complete, is taken. Two live operations sharing one
// handle means it carries no operation's state, so it cannot stand for a pending one. Otherwise
// (another MPI) MPI_REQUEST_NULL: every send is polled (a post that returned MPI_REQUEST_NULL would
// count as complete, as MPI_Test would say).
MPI_Request learn_sent_when_posted() {
  int none = 0;
  MPI_Request first = MPI_REQUEST_NULL;
  MPI_Request second = MPI_REQUEST_NULL;
  if (PMPI_Isend(&none, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_SELF, &first) != MPI_SUCCESS) return MPI_REQUEST_NULL;
  if (PMPI_Isend(&none, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_SELF, &second) != MPI_SUCCESS) {
    PMPI_Wait(&first, MPI_STATUS_IGNORE);
    return MPI_REQUEST_NULL;
  }
  int first_done = 0;
  int second_done = 0;
  PMPI_Request_get_status(first, &first_done, MPI_STATUS_IGNORE);
  PMPI_Request_get_status(second, &second_done, MPI_STATUS_IGNORE);
  const MPI_Request shared = first == second && first_done && second_done ? first : MPI_REQUEST_NULL;
  PMPI_Wait(&first, MPI_STATUS_IGNORE);
  PMPI_Wait(&second, MPI_STATUS_IGNORE);
  return shared;
}

// The first rank of its node (by the launcher's local rank; every rank when it does not say).
bool first_on_node() {
  const char* open_mpi = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  const char* hydra = std::getenv("MPI_LOCALRANKID");
  const char* id = open_mpi ? open_mpi : hydra;
  return !id || std::strcmp(id, "0") == 0;
}

}  // namespace

void cut::enable_checkpoints(bool on) {
  if (on) {
    g_idle = this_node_policy();
    g_sent_when_posted = learn_sent_when_posted();
#if defined(OPEN_MPI)
    g_direct_requests = yk_ompi_direct_usable() != 0;
    g_idle = with_library_yield(g_idle, yk_ompi_progress_yields_when_idle() != 0);
#endif
  }
  g_interruptible = on;  // the blocking wrappers' ready path (generated) polls from now on
}

void cut::report_idle_policy() {
  if (!g_interruptible || !g_idle.oversubscribed || !first_on_node()) return;
  char host[256] = "?";
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "?");
  print_line(
      "yadokari: %s runs %d ranks on %ld CPUs: waiting ranks yield the CPU on every idle poll (%sOpen MPI's "
      "mpi_yield_when_idle)",
      host, g_idle.local_ranks, g_idle.cpus, g_idle.library_yields ? "" : "as ");
}

const BlockingWaits& cut::polling_waits() {
  static constexpr BlockingWaits kPolling{interruptible_wait, interruptible_waitall, interruptible_waitany,
                                          interruptible_waitsome};
  return kPolling;
}

}  // namespace yadokari::shim
