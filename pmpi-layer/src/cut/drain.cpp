#include "pmpi-layer/src/cut/drain.hpp"

#include "pmpi-layer/src/shim/diagnostics.hpp"
#include "pmpi-layer/src/telemetry/rank_totals.hpp"
#include "pmpi-layer/src/cut/cut_state.hpp"
#include "pmpi-layer/src/objects/channel_hooks.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/slow_path.hpp"
#include "pmpi-layer/src/objects/world.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <vector>

namespace yadokari::shim {
namespace {

std::deque<DrainedMessage> g_drained;

bool matches(const DrainedMessage& m, MPI_Comm comm, int source, int tag) {
  return m.comm == comm && (source == MPI_ANY_SOURCE || source == m.source) && (tag == MPI_ANY_TAG || tag == m.tag);
}

std::deque<DrainedMessage>::iterator find_match(MPI_Comm comm, int source, int tag) {
  // MPI_COMM_WORLD and the virtual world's handle are the same communicator for the app.
  for (auto it = g_drained.begin(); it != g_drained.end(); ++it)
    if (matches(*it, comm, source, tag)) return it;
  return g_drained.end();
}

void fill_status(MPI_Status* status, const DrainedMessage& m) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = m.source;
  status->MPI_TAG = m.tag;
  status->MPI_ERROR = MPI_SUCCESS;
  PMPI_Status_set_elements_x(status, MPI_BYTE, static_cast<MPI_Count>(m.bytes.size()));
  PMPI_Status_set_cancelled(status, 0);
}

// Copies a drained message (raw bytes, as the sender's type map laid them out) into the
// receiver's buffer through its datatype.
int unpack(const DrainedMessage& m, void* buf, int count, MPI_Datatype datatype, MPI_Comm comm) {
  const std::uint64_t capacity = message_bytes(count, datatype);
  if (m.bytes.size() > capacity) return MPI_ERR_TRUNCATE;
  int position = 0;
  const int n = static_cast<int>(m.bytes.size() / std::max<std::uint64_t>(1, datatype_size(datatype)));
  if (m.bytes.empty()) return MPI_SUCCESS;
  return PMPI_Unpack(m.bytes.data(), static_cast<int>(m.bytes.size()), &position, buf, n, to_real<TypeK>(datatype),
                     to_real<CommK>(comm));
}

void take(std::deque<DrainedMessage>::iterator it) {
  g_drained.erase(it);
  if (--g_drained_pending == 0) set_slow_path(kSlowDrained, false);  // wrappers: fast path again
}

// Receives that the library already matched into a pending request are not in flight any more:
// complete them now (the status is kept for the app's Wait/Test) so that they count as received.
void complete_matched_receives() {
  std::vector<std::uint32_t> freed_and_done;  // released after the walk, not during it
  registry<ReqK>().table.for_each([&](std::uint32_t index, ReqK::entry& e) {
    RequestRecord& r = e.record;
    if (r.kind != RequestKind::receive || r.completed_by_shim || e.real == MPI_REQUEST_NULL) return;
    // An inactive persistent receive "completes" at once with an empty status: nothing to take.
    if (r.persistent && !r.active) return;
    int done = 0;
    MPI_Status st;
    PMPI_Test(&e.real, &done, &st);
    if (!done) return;
    on_receive(find_entry<CommK>(r.comm), r.peer, &st);
    if (r.freed_by_app) {  // nobody waits for it: counted, and gone
      freed_and_done.push_back(index);
      return;
    }
    r.completed_by_shim = true;
    r.status = st;
    ++g_shim_completed_requests;
  });
  for (const std::uint32_t index : freed_and_done) release_request(codec::encode<MPI_Request>(ReqK::code, index));
}

// Messages from each peer that were sent to this rank but have not arrived.
std::vector<std::uint64_t> missing_messages(const std::vector<std::uint64_t>& sent_to_me) {
  const TrafficRow mine = traffic_row();
  std::vector<std::uint64_t> missing(sent_to_me.size());
  for (std::size_t p = 0; p < missing.size(); ++p)
    missing[p] = sent_to_me[p] > mine.messages_received[p] ? sent_to_me[p] - mine.messages_received[p] : 0;
  return missing;
}

// Takes one message in flight on each of the app's communicators into the drained queue.
bool drain_one_round() {
  bool progressed = false;
  registry<CommK>().table.for_each([&](std::uint32_t index, CommK::entry& e) {
    int flag = 0;
    MPI_Status st;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, e.real, &flag, &st);
    if (!flag) return;
    const MPI_Comm app_comm = (&e == g_world_entry)  ? MPI_COMM_WORLD
                              : (&e == g_self_entry) ? MPI_COMM_SELF
                                                     : codec::encode<MPI_Comm>(CommK::code, index);
    DrainedMessage m{app_comm, st.MPI_SOURCE, st.MPI_TAG, std::vector<char>(received_bytes(&st))};
    PMPI_Recv(m.bytes.data(), static_cast<int>(m.bytes.size()), MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, e.real, &st);
    on_receive(&e, st.MPI_SOURCE, &st);
    g_drained.push_back(std::move(m));
    if (g_drained_pending++ == 0) set_slow_path(kSlowDrained, true);  // receive wrappers look here first
    ++g_drained_total;
    progressed = true;
  });
  return progressed;
}

// Until every message sent to this rank before the cut has arrived: either matched by a receive
// the app had posted (completed here) or drained into the shim.
void drain(const std::vector<std::uint64_t>& sent_to_me) {
  auto last_progress = std::chrono::steady_clock::now();
  for (;;) {
    complete_matched_receives();
    const std::vector<std::uint64_t> missing = missing_messages(sent_to_me);
    std::uint64_t outstanding = 0;
    for (auto m : missing) outstanding += m;
    if (outstanding == 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (drain_one_round()) last_progress = now;
    if (now - last_progress > std::chrono::seconds(30)) {
      for (std::size_t p = 0; p < missing.size(); ++p)
        if (missing[p])
          print_line("yadokari: checkpoint drain stuck on rank %d: %llu message(s) from rank %zu never arrived",
                     identity().logical_rank, static_cast<unsigned long long>(missing[p]), p);
      PMPI_Abort(MPI_COMM_WORLD, 71);
    }
  }
}

}  // namespace

std::deque<DrainedMessage>& drained_messages() { return g_drained; }

int consistent_cut() {
  const TrafficRow mine = traffic_row();
  std::vector<std::uint64_t> sent_to_me(mine.messages_sent.size());
  // Every rank learns how many messages each peer sent to it, on the shim's own communicator.
  PMPI_Alltoall(mine.messages_sent.data(), 1, MPI_UINT64_T, sent_to_me.data(), 1, MPI_UINT64_T, shim_comm());
  drain(sent_to_me);
  // Nobody may send again before everybody drained: a new message could otherwise be taken for
  // one from before the cut.
  return PMPI_Barrier(shim_comm());
}

int redeliver_recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Status* status) {
  auto it = find_match(comm, source, tag);
  if (it == g_drained.end()) return kNotDrained;
  const int rc = unpack(*it, buf, count, datatype, comm);
  fill_status(status, *it);
  take(it);
  return rc;
}

int redeliver_irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  auto it = find_match(comm, source, tag);
  if (it == g_drained.end()) return kNotDrained;
  RequestRecord r{RequestKind::receive, false, comm, source, 0, true, {}};
  const int rc = unpack(*it, buf, count, datatype, comm);
  fill_status(&r.status, *it);
  r.status.MPI_ERROR = rc;
  take(it);
  // No library request behind it (adopt() would leave a null handle alone).
  const std::uint32_t index = registry<ReqK>().table.add({MPI_REQUEST_NULL, Recipe{}, r, 1}, g_many_writers);
  *request = codec::encode<MPI_Request>(ReqK::code, index);
  ++g_shim_completed_requests;
  return MPI_SUCCESS;
}

bool complete_from_drained(RequestRecord& r) {
  MPI_Status st;
  const int rc = redeliver_recv(r.buf, r.count, r.datatype, r.peer, r.tag, r.comm, &st);
  if (rc == kNotDrained) return false;
  st.MPI_ERROR = rc;
  r.completed_by_shim = true;
  r.status = st;
  ++g_shim_completed_requests;  // drained messages were counted as received when drained
  return true;
}

int redeliver_probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  auto it = find_match(comm, source, tag);
  if (it == g_drained.end()) return kNotDrained;
  fill_status(status, *it);
  return MPI_SUCCESS;
}

int redeliver_iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  auto it = find_match(comm, source, tag);
  if (it == g_drained.end()) return kNotDrained;
  *flag = 1;
  fill_status(status, *it);
  return MPI_SUCCESS;
}

int redeliver_sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                       MPI_Status* status) {
  auto it = find_match(comm, source, recvtag);
  if (it == g_drained.end()) return kNotDrained;
  // The send half still goes through the library; non-blocking, so two ranks in Sendrecv with
  // each other cannot deadlock on it.
  CommK::entry* e = find_entry<CommK>(comm);
  MPI_Request send;
  int rc = PMPI_Isend(sendbuf, sendcount, to_real<TypeK>(sendtype), dest, sendtag, real_of(e, comm), &send);
  if (rc != MPI_SUCCESS) return rc;
  on_send(e, sendcount, sendtype, dest);
  rc = unpack(*it, recvbuf, recvcount, recvtype, comm);
  fill_status(status, *it);
  take(it);
  const int wrc = PMPI_Wait(&send, MPI_STATUS_IGNORE);
  return rc != MPI_SUCCESS ? rc : wrc;
}

int refuse_if_drained(MPI_Comm comm, const char* function) {
  for (const auto& m : g_drained)
    if (m.comm == comm) {
      print_line("yadokari: %s on a communicator with messages drained at a checkpoint is not supported yet", function);
      PMPI_Abort(MPI_COMM_WORLD, 70);
    }
  return kNotDrained;
}

}  // namespace yadokari::shim

// For tests and, later, the checkpoint protocol: the consistent cut on its own.
extern "C" YK_API int yadokari_consistent_cut(void) { return yadokari::shim::consistent_cut(); }
