// The channel-table hooks of the generated wrappers (mpi_functions.def names them), inline:
// they run on every message. Implemented on the communicators' records (communicators.cpp).
#pragma once

#include "pmpi-layer/src/core/counter.hpp"
#include "pmpi-layer/src/objects/message_size.hpp"
#include "pmpi-layer/src/objects/virtual_handles.hpp"

#include <mpi.h>

#include <cstdint>

namespace yadokari::shim {

// Channel-table hooks of the generated wrappers, inline: they run on every message. `comm` is
// the communicator's entry (null for a communicator the shim does not know, e.g. MPI_COMM_NULL).
YK_HOT void on_send(CommK::entry* comm, int count, MPI_Datatype datatype, int dest) {
  if (comm) [[likely]]
    comm->record.channels.on_send(dest, message_bytes(count, datatype));
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
  Channel* channel;     // null: not counted (unknown communicator, MPI_PROC_NULL, bad peer)
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
  if (size == kSizeUnknown) [[unlikely]]
    return {c, kSizeUnknown};
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
  if (!comm || source == MPI_PROC_NULL) [[unlikely]]
    return {nullptr, nullptr};
  if (source >= 0) [[likely]]
    return {nullptr, comm->record.channels.find(source)};
  return {source == MPI_ANY_SOURCE ? &comm->record.channels : nullptr, nullptr};
}
YK_HOT bool needs_slow_path(const SendTally& t) { return t.bytes == kSizeUnknown; }
YK_HOT bool needs_slow_path(const ReceiveTally&) { return false; }
YK_HOT bool needs_slow_path(const SendTally& s, const ReceiveTally& r) {
  return needs_slow_path(s) || needs_slow_path(r);
}

// Persistent sends are counted at MPI_Start, from the request's record.
void on_send_bytes(MPI_Comm comm, int dest, std::uint64_t bytes);
YK_HOT void on_collective(CommK::entry* comm) {
  if (comm) ++comm->record.collectives_started;
}
}  // namespace yadokari::shim
