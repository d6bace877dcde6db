// The objects' globals, in one place: the handle tables, the virtual world's entries, the
// creation log, the traffic of freed communicators, the request counters and the datatype-size
// cache. State private to one file of objects/ (attribute keyvals, trampoline slots, the rank's
// identity) stays in that file behind its accessors. What of it an image carries, and how it is
// put back: object_image.{hpp,cpp}.
#pragma once

#include "pmpi-layer/src/core/channel_table.hpp"
#include "pmpi-layer/src/objects/kinds.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace yadokari::shim {

// One registry per kind, built when the shim is loaded (before the app's main and before
// MPI_Init), so lookups never pay for a lazy-initialisation guard.
template <class K>
inline Registry<K> g_registry{};

template <class K>
inline Registry<K>& registry() {
  return g_registry<K>;
}

// The communicator entries that stand for MPI_COMM_WORLD and MPI_COMM_SELF (indices for
// records and stats; pointers because the world is on the hottest path of all).
inline std::uint32_t g_world_index = UINT32_MAX;
inline std::uint32_t g_self_index = UINT32_MAX;
inline CommK::entry* g_world_entry = nullptr;
inline CommK::entry* g_self_entry = nullptr;

// Every object-creating call of the app a restart still needs, in order (kinds.hpp, CreationRecord;
// kept short by creation_log.hpp).
inline std::vector<CreationRecord> g_creation_log;

// The buffer of MPI_Buffer_attach (attached_buffer.cpp): the application's memory, attached again
// to the fresh library after a restart. Size 0: none.
struct AttachedBuffer {
  std::uint64_t address = 0;
  std::int64_t size = 0;
};
inline AttachedBuffer g_attached_buffer;

// Names the app gave predefined datatypes (MPI_Type_set_name on MPI_INT, ...), which have no
// record: by handle (the same value after a restart: the library is the same and at the same
// address, as every predefined handle the app keeps needs). datatypes.cpp.
inline std::map<std::uint64_t, std::string> g_predefined_type_names;

// The traffic of freed communicators, by logical peer (communicators.cpp).
inline RetiredChannels g_retired_channels;

// How many collectives this rank entered on each communicator it freed (cut key, count), for the
// consistent cut: a rank that left a collective and freed its communicator must still count it,
// or the cut could stop a member that has not entered that collective yet short of it, and the
// parts the others sent inside the library would be lost with the old processes. The cut reports
// them with the live counts and forgets them once a cut has taken every member to them
// (cut_protocol.cpp). Not carried: a checkpoint is such a cut.
struct FreedCutCount {
  std::uint64_t key = 0, entered = 0;
};
inline std::vector<FreedCutCount> g_freed_cut_counts;

// How many communicators this rank made with MPI_Comm_create_group over each set of members
// (keyed by the hash of the members' logical ranks): part of such a communicator's cut key
// (cut_keys.hpp), so that two made over the same members one after the other are told apart.
inline std::map<std::uint64_t, std::uint64_t> g_comms_made_over_group;

// Receives posted and persistent requests started, in order (requests.cpp; a restart re-posts
// pending receives in this order).
inline std::uint64_t g_posts = 0;

// Requests the shim completed (drained message, or matched before a cut) and the app has not
// waited for yet: the completion wrappers look for them only when this is non-zero.
inline std::size_t g_shim_completed_requests = 0;

// How MPI_Wait, MPI_Waitall, MPI_Waitany and MPI_Waitsome block (requests.cpp). Null: inside the
// library. With checkpoints on, the cut's polling loops (cut::polling_waits(), interruptible.cpp),
// installed by the composition root through objects::use_blocking_waits(). They call the
// requests' own MPI_Test* between looks at the checkpoint request, and library_wait*
// (object_hooks.hpp) once the library said the requests are complete: the cut depends on the
// requests, never the other way round.
struct BlockingWaits {
  int (*wait)(MPI_Request* request, MPI_Status* status);
  int (*waitall)(int count, MPI_Request requests[], MPI_Status statuses[]);
  int (*waitany)(int count, MPI_Request requests[], int* index, MPI_Status* status);
  int (*waitsome)(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]);
};
inline const BlockingWaits* g_blocking_waits = nullptr;

// Sizes of the datatypes a rank sends with, keyed by the app's handle (message_size.hpp).
// An empty slot has type 0, which is no valid datatype handle in either ABI (Open MPI: a null
// pointer; MPICH: kind bits 00 with a zero index), so "hit" is one compare of the type.
struct TypeSizeSlot {
  MPI_Datatype type;
  std::uint64_t size;
};
inline TypeSizeSlot g_type_size_cache[64];

}  // namespace yadokari::shim
