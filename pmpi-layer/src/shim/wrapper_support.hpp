// Everything the generated wrappers call: handle translation (virtual_handles.hpp), call
// counters (call_scope.hpp) and the hooks named in mpi_functions.def, grouped by the file that
// implements them.
#pragma once

#include "shim/call_scope.hpp"
#include "cut/cut_protocol.hpp"
#include "cut/interruptible.hpp"
#include "cut/drain.hpp"
#include "objects/message_size.hpp"
#include "objects/virtual_handles.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

// The shim is compiled with hidden visibility so that its internals bind directly (no PLT/GOT
// on the wrappers' fast path); only the MPI entry points it interposes are exported.
#define YK_API __attribute__((visibility("default")))

// misc.cpp: stops the job with one clear line (also called by the generated stubs).
extern "C" [[noreturn]] YK_API void yadokari_unsupported_call(const char* function, const char* binding);

namespace yk {

template <class H>
inline std::uint64_t hv(H h) { return codec::to_u64(h); }

inline Recipe recipe(RecipeOp op, std::initializer_list<std::int64_t> ints = {},
                     std::initializer_list<std::uint64_t> parents = {}) {
  return Recipe::make(op, std::vector<std::int64_t>(ints), std::vector<std::uint64_t>(parents));
}

// --- communicators.cpp: channel table and per-communicator records
MPI_Comm adopt_comm(MPI_Comm real, Recipe recipe);

// Channel-table hooks of the generated wrappers, inline: they run on every message. `comm` is
// the communicator's entry (null for a communicator the shim does not know, e.g. MPI_COMM_NULL).
YK_HOT void on_send(CommK::entry* comm, int count, MPI_Datatype datatype, int dest) {
  if (comm) [[likely]] comm->record.channels.on_send(dest, message_bytes(count, datatype));
}
// `source` as posted: a receive from MPI_PROC_NULL is not a message (and MPICH leaves the status
// of such a request unset in MPI_Waitall, so the status alone cannot tell).
YK_HOT void on_receive(CommK::entry* comm, int source, const MPI_Status* status) {
  if (comm && source != MPI_PROC_NULL && status->MPI_SOURCE >= 0) [[likely]]
    comm->record.channels.on_receive(status->MPI_SOURCE, received_bytes(status));
}

// The same hooks split in two for the blocking point-to-point wrappers: prepare_* before the
// library call takes everything it needs from the arguments (the channel, the bytes), commit()
// counts after the call returned MPI_SUCCESS. Only the small tally lives across the library call,
// so the wrapper keeps fewer registers alive around it. Counts stay exact: nothing is counted
// unless the call succeeded. `single_writer` is a constant of the calling wrapper: true on its
// fast path (which runs only without MPI_THREAD_MULTIPLE), where a tally that would need the
// library (a datatype size not cached yet) is not made: needs_slow_path() sends the call to the
// slow wrapper, which asks the library and caches the size.
struct SendTally {
  Channel* channel;  // null: not counted (unknown communicator, MPI_PROC_NULL, bad peer)
  std::uint64_t bytes;  // kSizeUnknown: fast path only, see above
  YK_HOT void commit(bool single_writer) const {
    if (channel) [[likely]]
      Counter::add_pair(channel->messages_sent, 1, channel->bytes_sent, bytes, single_writer);
  }
};
YK_HOT SendTally prepare_send(CommK::entry* comm, int count, MPI_Datatype datatype, int dest, bool single_writer) {
  Channel* const c = comm ? comm->record.channels.find(dest) : nullptr;
  if (!c || count <= 0) return {c, 0};
  if (!single_writer) return {c, static_cast<std::uint64_t>(count) * datatype_size(datatype)};
  const std::uint64_t size = known_type_size(datatype);
  if (size == kSizeUnknown) [[unlikely]] return {c, kSizeUnknown};
  // Sizes are ints: as 32 bits the product provably stays below kSizeUnknown, so the compiler
  // drops needs_slow_path()'s second test.
  return {c, static_cast<std::uint64_t>(count) * static_cast<std::uint32_t>(size)};
}
struct ReceiveTally {
  // A receive from one given source can only match that source's messages (MPI's matching
  // rule), so its channel is looked up before the library call: after it, on the ping-pong's
  // critical path, only the counters are touched. MPI_ANY_SOURCE takes the channel from the status.
  CommChannels* any_source;  // MPI_ANY_SOURCE on a known communicator, else null
  Channel* channel;          // the posted source's channel, else null
  YK_HOT void commit(const MPI_Status* status, bool single_writer) const {
    if (channel) [[likely]]
      Counter::add_pair(channel->messages_received, 1, channel->bytes_received, received_bytes(status), single_writer);
    else if (any_source && status->MPI_SOURCE >= 0)
      any_source->on_receive(status->MPI_SOURCE, received_bytes(status), single_writer);
  }
};
// `source` as posted (see on_receive). Not counted: an unknown communicator, MPI_PROC_NULL, a
// source out of range (the library rejects it).
YK_HOT ReceiveTally prepare_receive(CommK::entry* comm, int source) {
  if (!comm || source == MPI_PROC_NULL) [[unlikely]] return {nullptr, nullptr};
  if (source >= 0) [[likely]] return {nullptr, comm->record.channels.find(source)};
  return {source == MPI_ANY_SOURCE ? &comm->record.channels : nullptr, nullptr};
}
YK_HOT bool needs_slow_path(const SendTally& t) { return t.bytes == kSizeUnknown; }
YK_HOT bool needs_slow_path(const ReceiveTally&) { return false; }
YK_HOT bool needs_slow_path(const SendTally& s, const ReceiveTally& r) { return needs_slow_path(s) || needs_slow_path(r); }

// Persistent sends are counted at MPI_Start, from the request's record.
void on_send_bytes(MPI_Comm comm, int dest, std::uint64_t bytes);
YK_HOT void on_collective(CommK::entry* comm) {
  if (comm) ++comm->record.collectives_started;
}
int peer_count(MPI_Comm comm);
int cart_ndims(MPI_Comm comm);
void remember_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
void retire_comm_channels(MPI_Comm comm);  // MPI_Comm_free: keep its traffic in the totals
inline RetiredChannels g_retired_channels;

// --- recipes.cpp: recipes whose arguments are arrays
Recipe recipe_cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder);
Recipe recipe_cart_sub(MPI_Comm comm, const int remain_dims[]);
Recipe recipe_graph_create(MPI_Comm old, int nnodes, const int index[], const int edges[], int reorder);
Recipe recipe_dist_graph_adjacent(MPI_Comm old, int indegree, const int sources[], const int sourceweights[],
                                  int outdegree, const int destinations[], const int destweights[], int reorder);
Recipe recipe_ranks(RecipeOp op, MPI_Group group, int n, const int ranks[]);
Recipe recipe_blocks(RecipeOp op, int count, const int blocklengths[], const int displacements[], MPI_Datatype old);
Recipe recipe_blocks(RecipeOp op, int count, const int blocklengths[], const MPI_Aint displacements[], MPI_Datatype old);
Recipe recipe_block(RecipeOp op, int count, int blocklength, const int displacements[], MPI_Datatype old);
Recipe recipe_block(RecipeOp op, int count, int blocklength, const MPI_Aint displacements[], MPI_Datatype old);
Recipe recipe_struct(int count, const int blocklengths[], const MPI_Aint displacements[], const MPI_Datatype types[]);
Recipe recipe_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order, MPI_Datatype old);
Recipe recipe_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[], const int dargs[],
                     const int psizes[], int order, MPI_Datatype old);

// --- requests.cpp
MPI_Request track_send(MPI_Request real, int count, MPI_Datatype datatype, int dest, MPI_Comm comm,
                       CommK::entry* comm_entry, bool persistent);
MPI_Request track_receive(MPI_Request real, int source, MPI_Comm comm, bool persistent);  // not re-postable
// Receives and persistent sends with what a restart needs to post them again (repost.cpp).
MPI_Request track_receive(MPI_Request real, void* buf, int count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, bool persistent);
MPI_Request track_send_init(MPI_Request real, SendMode mode, const void* buf, int count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm);
inline std::uint64_t g_posts = 0;  // receives posted and persistent requests started, in order
MPI_Request track_collective(MPI_Request real, MPI_Comm comm);
MPI_Message track_message(MPI_Message real, MPI_Comm comm);
MPI_Comm message_comm(MPI_Message message);

// --- attributes.cpp
void copy_comm_attributes(MPI_Comm from, MPI_Comm to);
void delete_comm_attributes(MPI_Comm comm);
void copy_type_attributes(MPI_Datatype from, MPI_Datatype to);
void delete_type_attributes(MPI_Datatype type);
// The keyvals the shim handed out (index = keyval - base) and which are not freed: part of the
// shim's state at a checkpoint (shim_state.cpp).
std::vector<KeyvalRecord>& keyval_records();
std::vector<bool>& keyval_live_flags();

// --- datatypes.cpp
void mark_committed(MPI_Datatype type);
MPI_Datatype type_from_contents(MPI_Datatype real);

// --- operations.cpp
void release_op_trampoline(MPI_Op op);

// --- info.cpp
InfoRecord info_entries(MPI_Info info);
void mirror_info_set(MPI_Info info, const char* key, const char* value);
void mirror_info_delete(MPI_Info info, const char* key);

}  // namespace yk
