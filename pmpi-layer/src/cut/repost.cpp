// After a restart: the requests the app still holds get a request of the fresh library again
// (shim_state.hpp, repost_pending_receives). Sends and non-blocking collectives were completed
// at the checkpoint (their statuses are kept by the shim), so only receives pending at the cut
// are posted again, and persistent requests re-made so that MPI_Start works on them.
#include "pmpi-layer/src/shim/diagnostics.hpp"
#include "pmpi-layer/src/cut/shim_state.hpp"
#include "pmpi-layer/src/cut/drain.hpp"
#include "pmpi-layer/src/objects/channel_hooks.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace yadokari::shim {
namespace {

int persistent_send_init(const RequestRecord& r, MPI_Datatype type, MPI_Comm comm, MPI_Request* out) {
  switch (r.mode) {
    case SendMode::synchronous:
      return PMPI_Ssend_init(r.buf, r.count, type, r.peer, r.tag, comm, out);
    case SendMode::buffered:
      return PMPI_Bsend_init(r.buf, r.count, type, r.peer, r.tag, comm, out);
    case SendMode::ready:
      return PMPI_Rsend_init(r.buf, r.count, type, r.peer, r.tag, comm, out);
    case SendMode::standard:
      break;
  }
  return PMPI_Send_init(r.buf, r.count, type, r.peer, r.tag, comm, out);
}

void repost(ReqK::entry& e) {
  RequestRecord& r = e.record;
  e.real = MPI_REQUEST_NULL;  // nothing of the old library survives a restart
  if (!r.repostable) return;  // completed at the checkpoint (shim_state_checkpointable)
  const MPI_Datatype type = to_real<TypeK>(r.datatype);
  const MPI_Comm comm = to_real<CommK>(r.comm);
  int rc = MPI_SUCCESS;
  if (r.kind == RequestKind::send) {
    rc = persistent_send_init(r, type, comm, &e.real);  // inactive; MPI_Start posts it
  } else if (r.persistent) {
    rc = PMPI_Recv_init(r.buf, r.count, type, r.peer, r.tag, comm, &e.real);
    if (rc == MPI_SUCCESS && r.active && !r.completed_by_shim && !complete_from_drained(r)) rc = PMPI_Start(&e.real);
  } else if (!r.completed_by_shim && !complete_from_drained(r)) {
    rc = PMPI_Irecv(r.buf, r.count, type, r.peer, r.tag, comm, &e.real);
  }
  if (rc != MPI_SUCCESS)
    print_line(
        "yadokari: could not post a request again after the restart (MPI error %d); the app's Wait on it will fail",
        rc);
}

}  // namespace

void repost_pending_receives() {
  // MPI matches receives in the order they were posted; post them again in that order.
  auto& table = registry<ReqK>().table;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> order;
  table.for_each([&](std::uint32_t index, ReqK::entry& e) { order.emplace_back(e.record.posted, index); });
  std::sort(order.begin(), order.end());
  for (const auto& [posted, index] : order) repost(table.at(index));
}

bool drop_library_requests() {
  bool ok = true;
  registry<ReqK>().table.for_each([&](std::uint32_t, ReqK::entry& e) {
    if (e.real == MPI_REQUEST_NULL) return;
    const RequestRecord& r = e.record;
    if (r.kind == RequestKind::receive && !r.completed_by_shim && (!r.persistent || r.active)) {
      MPI_Status st;
      int cancelled = 0;
      PMPI_Cancel(&e.real);
      PMPI_Wait(&e.real, &st);
      PMPI_Test_cancelled(&st, &cancelled);
      if (!cancelled) ok = false;
    }
    if (e.real != MPI_REQUEST_NULL) PMPI_Request_free(&e.real);  // persistent ones
  });
  return ok;
}

}  // namespace yadokari::shim
