// Requests: tracking what each pending operation is (for the channel table now, for the drain
// protocol later) and the completion calls, which must hand completed virtual requests back to
// the table and set the app's handle to MPI_REQUEST_NULL exactly as the library would.
#include "pmpi-layer/src/cut/drain.hpp"
#include "pmpi-layer/src/objects/channel_hooks.hpp"
#include "pmpi-layer/src/objects/lifecycle.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/call_scope.hpp"
#include "pmpi-layer/src/objects/world.hpp"

namespace yadokari::shim {
namespace {

using ReqEntry = ReqK::entry;

// Statuses the shim needs even when the app passes MPI_STATUSES_IGNORE (a receive's source and
// size). Small counts stay on the stack.
class StatusScratch {
 public:
  StatusScratch(MPI_Status* app, int n) {
    if (app != MPI_STATUSES_IGNORE) {
      data_ = app;
    } else {
      const std::size_t count = n > 0 ? static_cast<std::size_t>(n) : 0;
      data_ = count <= kInline ? inline_ : (heap_ = new MPI_Status[count]);
    }
  }
  ~StatusScratch() { delete[] heap_; }
  StatusScratch(const StatusScratch&) = delete;
  StatusScratch& operator=(const StatusScratch&) = delete;
  MPI_Status* get() { return data_; }

 private:
  static constexpr std::size_t kInline = 32;
  MPI_Status inline_[kInline];
  MPI_Status* heap_ = nullptr;
  MPI_Status* data_ = nullptr;
};

// A request that keeps its datatype to be posted again (a persistent one, or a receive pending at
// a cut) holds a reference on the type's entry: the app may free the type at once (MPI allows it),
// and a freed entry's slot goes to the next type made, which a restart would then post the
// request with.
void hold_type(MPI_Datatype type) {
  if (auto* e = find_entry<TypeK>(type)) ++e->references;
}

// The app's request (entry `e` at `index`) is gone: so is its hold on the datatype.
void release_request_entry(std::uint32_t index, ReqEntry& e) {
  const MPI_Datatype held = (e.references == 1 && e.record.repostable) ? e.record.datatype : MPI_DATATYPE_NULL;
  release_entry<ReqK>(index, e);
  if (held != MPI_DATATYPE_NULL) release<TypeK>(held);
}

// The library completed the operation behind the app's virtual request `*app`; `real_after` is
// what the library left in the real handle (MPI_REQUEST_NULL, or the inactive persistent one).
void finish(MPI_Request* app, MPI_Request real_after, MPI_Status* status) {
  const MPI_Request v = *app;
  if (!codec::is_virtual(v)) return;
  const std::uint32_t index = codec::index_of(v);
  ReqEntry& e = registry<ReqK>().table.at(index);
  e.record.active = false;
  if (e.record.completed_by_shim) [[unlikely]] {
    // Completed by the consistent cut or from a drained message: counted then; hand out the
    // status kept then (the library has nothing behind this request any more).
    if (status != MPI_STATUS_IGNORE) *status = e.record.status;
    e.record.completed_by_shim = false;
    --g_shim_completed_requests;
    // A persistent request stays, inactive, with its library handle; any other is done.
    real_after = e.record.persistent ? e.real : MPI_REQUEST_NULL;
  } else if (e.record.kind == RequestKind::receive && status != MPI_STATUS_IGNORE) {
    on_receive(find_entry<CommK>(e.record.comm), e.record.peer, status);
  }
  if (real_after == MPI_REQUEST_NULL && !e.record.persistent) {
    release_request_entry(index, e);
    *app = MPI_REQUEST_NULL;
  } else {
    e.real = real_after;
  }
}

// The track_* functions fill a new request's record where it lives (adopt_without_recipe), so each
// sets only what differs from a default RequestRecord. What every request has:
void set_request(RequestRecord& r, RequestKind kind, bool persistent, MPI_Comm comm, int peer) {
  r.kind = kind;
  r.persistent = persistent;
  r.comm = comm;
  r.peer = peer;
}

// ...and what a request that a restart posts again has (see RequestRecord::repostable).
void set_repostable(RequestRecord& r, void* buf, int count, MPI_Datatype datatype, int tag) {
  r.repostable = true;
  r.buf = buf;
  r.count = count;
  r.datatype = datatype;
  r.tag = tag;
}

// MPI_Start(all) of a persistent request: counted (sends) and, for a restart, remembered as active.
void count_start(ReqEntry& e) {
  e.record.active = true;
  e.record.posted = ++g_posts;
  if (e.record.kind == RequestKind::send) on_send_bytes(e.record.comm, e.record.peer, e.record.bytes);
}

}  // namespace

void release_request(MPI_Request v) {
  if (!codec::is_virtual(v)) return;
  const std::uint32_t index = codec::index_of(v);
  release_request_entry(index, registry<ReqK>().table.at(index));
}

MPI_Request track_send(MPI_Request real, int count, MPI_Datatype datatype, int dest, MPI_Comm comm,
                       CommK::entry* comm_entry, bool persistent) {
  const std::uint64_t bytes = message_bytes(count, datatype);
  if (!persistent && comm_entry) comm_entry->record.channels.on_send(dest, bytes);
  return adopt_without_recipe<ReqK>(real, [&](RequestRecord& r) {
    set_request(r, RequestKind::send, persistent, comm, dest);
    r.bytes = bytes;
  });
}

MPI_Request track_receive(MPI_Request real, int source, MPI_Comm comm, bool persistent) {
  return adopt_without_recipe<ReqK>(
      real, [&](RequestRecord& r) { set_request(r, RequestKind::receive, persistent, comm, source); });
}

MPI_Request track_receive(MPI_Request real, void* buf, int count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, bool persistent) {
  const std::uint64_t posted = persistent ? 0 : ++g_posts;  // a persistent one is posted by MPI_Start
  if (real != MPI_REQUEST_NULL) hold_type(datatype);
  return adopt_without_recipe<ReqK>(real, [&](RequestRecord& r) {
    set_request(r, RequestKind::receive, persistent, comm, source);
    set_repostable(r, buf, count, datatype, tag);
    r.posted = posted;
  });
}

MPI_Request track_send_init(MPI_Request real, SendMode mode, const void* buf, int count, MPI_Datatype datatype,
                            int dest, int tag, MPI_Comm comm) {
  const std::uint64_t bytes = message_bytes(count, datatype);
  if (real != MPI_REQUEST_NULL) hold_type(datatype);
  return adopt_without_recipe<ReqK>(real, [&](RequestRecord& r) {
    set_request(r, RequestKind::send, true, comm, dest);
    r.bytes = bytes;
    set_repostable(r, const_cast<void*>(buf), count, datatype, tag);  // only ever handed back to a *send_init
    r.mode = mode;
  });
}

MPI_Request track_collective(MPI_Request real, MPI_Comm comm) {
  on_collective(find_entry<CommK>(comm));
  return adopt_without_recipe<ReqK>(
      real, [&](RequestRecord& r) { set_request(r, RequestKind::collective, false, comm, MPI_PROC_NULL); });
}

MPI_Message track_message(MPI_Message real, MPI_Comm comm) {
  return adopt_without_recipe<MsgK>(real, [&](MessageRecord& r) { r.comm = comm; });
}

MPI_Comm message_comm(MPI_Message message) {
  auto* rec = record_of<MsgK>(message);
  return rec ? rec->comm : MPI_COMM_NULL;
}

void objects::use_blocking_waits(const BlockingWaits* waits) { g_blocking_waits = waits; }

}  // namespace yadokari::shim

using namespace yadokari::shim;

int yadokari::shim::library_wait(MPI_Request* request, MPI_Status* status) {
  if (!codec::is_virtual(*request)) return PMPI_Wait(request, status);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  MPI_Request real = to_real<ReqK>(*request);
  const int rc = PMPI_Wait(&real, st);
  if (rc == MPI_SUCCESS) finish(request, real, st);
  return rc;
}

extern "C" YK_API int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  CallScope scope(Fn::MPI_Wait);
  if (g_blocking_waits) [[unlikely]]
    return g_blocking_waits->wait(request, status);
  return library_wait(request, status);
}

extern "C" YK_API int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  CallScope scope(Fn::MPI_Test);
  if (!codec::is_virtual(*request)) return PMPI_Test(request, flag, status);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  MPI_Request real = to_real<ReqK>(*request);
  const int rc = PMPI_Test(&real, flag, st);
  if (rc == MPI_SUCCESS && *flag) finish(request, real, st);
  return rc;
}

namespace {

// Waitall/Testall: on success every request completed; on MPI_ERR_IN_STATUS those whose status
// is not MPI_ERR_PENDING did.
void finish_all(int count, MPI_Request* app, MPI_Request* reals, MPI_Status* st, int rc) {
  for (int i = 0; i < count; ++i) {
    if (rc == MPI_ERR_IN_STATUS && st[i].MPI_ERROR == MPI_ERR_PENDING) continue;
    finish(&app[i], reals[i], &st[i]);
  }
}

}  // namespace

int yadokari::shim::library_waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  RealArray<ReqK> reals(array_of_requests, count);
  StatusScratch st(array_of_statuses, count);
  const int rc = PMPI_Waitall(count, reals.get(), st.get());
  if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) finish_all(count, array_of_requests, reals.get(), st.get(), rc);
  return rc;
}

extern "C" YK_API int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  CallScope scope(Fn::MPI_Waitall);
  if (g_blocking_waits) [[unlikely]]
    return g_blocking_waits->waitall(count, array_of_requests, array_of_statuses);
  return library_waitall(count, array_of_requests, array_of_statuses);
}

extern "C" YK_API int MPI_Testall(int count, MPI_Request array_of_requests[], int* flag,
                                  MPI_Status array_of_statuses[]) {
  CallScope scope(Fn::MPI_Testall);
  RealArray<ReqK> reals(array_of_requests, count);
  StatusScratch st(array_of_statuses, count);
  const int rc = PMPI_Testall(count, reals.get(), flag, st.get());
  if ((rc == MPI_SUCCESS && *flag) || rc == MPI_ERR_IN_STATUS)
    finish_all(count, array_of_requests, reals.get(), st.get(), rc);
  return rc;
}

namespace {

// The library ignores requests the shim completed (there is nothing behind them), so the
// "any"/"some" calls return those first. Index of the first one, or -1.
int first_shim_completed(int count, const MPI_Request* requests) {
  if (g_shim_completed_requests == 0) return -1;
  for (int i = 0; i < count; ++i)
    if (auto* e = find_entry<ReqK>(requests[i]); e && e->record.completed_by_shim) return i;
  return -1;
}

}  // namespace

int yadokari::shim::library_waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status) {
  if (const int i = first_shim_completed(count, array_of_requests); i >= 0) {
    *index = i;
    finish(&array_of_requests[i], MPI_REQUEST_NULL, status);
    return MPI_SUCCESS;
  }
  RealArray<ReqK> reals(array_of_requests, count);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Waitany(count, reals.get(), index, st);
  if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) finish(&array_of_requests[*index], reals[*index], st);
  return rc;
}

extern "C" YK_API int MPI_Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status) {
  CallScope scope(Fn::MPI_Waitany);
  if (g_blocking_waits) [[unlikely]]
    return g_blocking_waits->waitany(count, array_of_requests, index, status);
  return library_waitany(count, array_of_requests, index, status);
}

extern "C" YK_API int MPI_Testany(int count, MPI_Request array_of_requests[], int* index, int* flag,
                                  MPI_Status* status) {
  CallScope scope(Fn::MPI_Testany);
  if (const int i = first_shim_completed(count, array_of_requests); i >= 0) {
    *index = i;
    *flag = 1;
    finish(&array_of_requests[i], MPI_REQUEST_NULL, status);
    return MPI_SUCCESS;
  }
  RealArray<ReqK> reals(array_of_requests, count);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Testany(count, reals.get(), index, flag, st);
  if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED) finish(&array_of_requests[*index], reals[*index], st);
  return rc;
}

namespace {

void finish_some(MPI_Request* app, MPI_Request* reals, int outcount, const int* indices, MPI_Status* st) {
  if (outcount == MPI_UNDEFINED) return;
  for (int k = 0; k < outcount; ++k) finish(&app[indices[k]], reals[indices[k]], &st[k]);
}

}  // namespace

int yadokari::shim::library_waitsome(int incount, MPI_Request array_of_requests[], int* outcount,
                                     int array_of_indices[], MPI_Status array_of_statuses[]) {
  if (const int i = first_shim_completed(incount, array_of_requests); i >= 0) {
    *outcount = 1;
    array_of_indices[0] = i;
    finish(&array_of_requests[i], MPI_REQUEST_NULL,
           array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[0]);
    return MPI_SUCCESS;
  }
  RealArray<ReqK> reals(array_of_requests, incount);
  StatusScratch st(array_of_statuses, incount);
  const int rc = PMPI_Waitsome(incount, reals.get(), outcount, array_of_indices, st.get());
  if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)
    finish_some(array_of_requests, reals.get(), *outcount, array_of_indices, st.get());
  return rc;
}

extern "C" YK_API int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                                   MPI_Status array_of_statuses[]) {
  CallScope scope(Fn::MPI_Waitsome);
  if (g_blocking_waits) [[unlikely]]
    return g_blocking_waits->waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
  return library_waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

extern "C" YK_API int MPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                                   MPI_Status array_of_statuses[]) {
  CallScope scope(Fn::MPI_Testsome);
  if (const int i = first_shim_completed(incount, array_of_requests); i >= 0) {
    *outcount = 1;
    array_of_indices[0] = i;
    finish(&array_of_requests[i], MPI_REQUEST_NULL,
           array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[0]);
    return MPI_SUCCESS;
  }
  RealArray<ReqK> reals(array_of_requests, incount);
  StatusScratch st(array_of_statuses, incount);
  const int rc = PMPI_Testsome(incount, reals.get(), outcount, array_of_indices, st.get());
  if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)
    finish_some(array_of_requests, reals.get(), *outcount, array_of_indices, st.get());
  return rc;
}

namespace {

// A request the shim completed (drained message, or matched before a cut) that the app has not
// waited for yet: the library's handle behind it is already gone (or inactive, if persistent).
ReqEntry* shim_completed(MPI_Request request) {
  if (g_shim_completed_requests == 0) return nullptr;
  ReqEntry* e = find_entry<ReqK>(request);
  return (e && e->record.completed_by_shim) ? e : nullptr;
}

}  // namespace

extern "C" YK_API int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  CallScope scope(Fn::MPI_Request_get_status);
  if (const ReqEntry* e = shim_completed(request)) {
    *flag = 1;
    if (status != MPI_STATUS_IGNORE) *status = e->record.status;
    return MPI_SUCCESS;
  }
  return PMPI_Request_get_status(to_real<ReqK>(request), flag, status);
}

extern "C" YK_API int MPI_Cancel(MPI_Request* request) {
  CallScope scope(Fn::MPI_Cancel);
  if (shim_completed(*request)) return MPI_SUCCESS;  // cancelling a completed request does nothing
  MPI_Request real = to_real<ReqK>(*request);
  return PMPI_Cancel(&real);
}

extern "C" YK_API int MPI_Request_free(MPI_Request* request) {
  CallScope scope(Fn::MPI_Request_free);
  if (ReqEntry* e = shim_completed(*request)) {
    e->record.completed_by_shim = false;
    --g_shim_completed_requests;
    if (e->real != MPI_REQUEST_NULL) PMPI_Request_free(&e->real);  // an inactive persistent one
    release_request(*request);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  }
  if (!codec::is_virtual(*request)) return PMPI_Request_free(request);
  ReqEntry& e = registry<ReqK>().table.at(codec::index_of(*request));
  if (e.record.kind == RequestKind::receive && !e.record.persistent && e.real != MPI_REQUEST_NULL) {
    int done = 0;
    MPI_Status st;
    if (PMPI_Test(&e.real, &done, &st) == MPI_SUCCESS && done) {
      on_receive(find_entry<CommK>(e.record.comm), e.record.peer, &st);
      release_request(*request);
    } else {
      e.record.freed_by_app = true;  // see RequestRecord: kept until a cut finds it complete
    }
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  }
  MPI_Request real = to_real<ReqK>(*request);
  const int rc = PMPI_Request_free(&real);
  if (rc == MPI_SUCCESS) {
    release_request(*request);
    *request = MPI_REQUEST_NULL;
  }
  return rc;
}

namespace {

// A persistent receive started while messages drained at a cut wait in the shim takes the one it
// matches from there, as MPI_Irecv does; its library request stays inactive. Started from the
// library instead, it would take the next message and leave the drained one to a later receive.
bool start_from_drained(ReqK::entry& e) {
  RequestRecord& r = e.record;
  if (g_drained_pending == 0 || r.kind != RequestKind::receive || !r.persistent) return false;
  if (!complete_from_drained(r)) return false;
  count_start(e);
  return true;
}

int start_one(MPI_Request* request) {
  ReqK::entry* e = find_entry<ReqK>(*request);
  if (!e) return PMPI_Start(request);
  if (start_from_drained(*e)) [[unlikely]]
    return MPI_SUCCESS;
  const int rc = PMPI_Start(&e->real);
  if (rc == MPI_SUCCESS) count_start(*e);
  return rc;
}

}  // namespace

extern "C" YK_API int MPI_Start(MPI_Request* request) {
  CallScope scope(Fn::MPI_Start);
  return start_one(request);
}

extern "C" YK_API int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  CallScope scope(Fn::MPI_Startall);
  if (g_drained_pending != 0) [[unlikely]] {
    // One by one, in order: each receive may take a drained message, the rest go to the library.
    for (int i = 0; i < count; ++i)
      if (const int rc = start_one(&array_of_requests[i]); rc != MPI_SUCCESS) return rc;
    return MPI_SUCCESS;
  }
  RealArray<ReqK> reals(array_of_requests, count);
  const int rc = PMPI_Startall(count, reals.get());
  if (rc == MPI_SUCCESS)
    for (int i = 0; i < count; ++i)
      if (ReqK::entry* e = find_entry<ReqK>(array_of_requests[i])) {
        e->real = reals[i];
        count_start(*e);
      }
  return rc;
}
