// What the generated wrappers and the hand-written ones call to create, free and look up MPI
// objects (the hooks mpi_functions.def names), grouped by the file of objects/ that implements
// them.
#pragma once

#include "pmpi-layer/src/core/recipe.hpp"
#include "pmpi-layer/src/objects/records.hpp"
#include "pmpi-layer/src/objects/virtual_handles.hpp"

#include <mpi.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace yadokari::shim {

template <class H>
inline std::uint64_t hv(H h) {
  return codec::to_u64(h);
}

inline Recipe recipe(RecipeOp op, std::initializer_list<std::int64_t> ints = {},
                     std::initializer_list<std::uint64_t> parents = {}) {
  return Recipe::make(op, std::vector<std::int64_t>(ints), std::vector<std::uint64_t>(parents));
}

// --- communicators.cpp: channel table and per-communicator records
MPI_Comm adopt_comm(MPI_Comm real, Recipe recipe);
int peer_count(MPI_Comm comm);
int cart_ndims(MPI_Comm comm);
void remember_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
// The app's world's error handler (a library handle) also on the library's MPI_COMM_WORLD, when
// the app's world is another communicator (a restart over a rank map).
void world_errhandler_on_library_world(MPI_Errhandler real);
// MPI_Comm_set_name: kept in the record, given again after a restart (cut/replay.cpp).
void remember_comm_name(MPI_Comm comm, const char* name);
// MPI_Comm_free: keep its traffic in the totals and its collective count for the cut.
void retire_comm(MPI_Comm comm);

// --- requests.cpp: the app's request (or one it freed that the shim kept) is gone
void release_request(MPI_Request v);

// --- attached_buffer.cpp: MPI_Buffer_attach/detach, and the attachment again after a restart
void remember_attached_buffer(void* buffer, int size);
void forget_attached_buffer();
void reattach_buffer();

// --- recipes.cpp: recipes whose arguments are arrays
Recipe recipe_cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder);
Recipe recipe_cart_sub(MPI_Comm comm, const int remain_dims[]);
// MPI_Comm_split_type: recorded as the MPI_Comm_split that gives `made`'s members, so that a
// restart elsewhere keeps them (`made` is the library's result, MPI_COMM_NULL for MPI_UNDEFINED).
Recipe recipe_split_type(MPI_Comm comm, MPI_Comm made, int key);
Recipe recipe_graph_create(MPI_Comm old, int nnodes, const int index[], const int edges[], int reorder);
Recipe recipe_dist_graph_adjacent(MPI_Comm old, int indegree, const int sources[], const int sourceweights[],
                                  int outdegree, const int destinations[], const int destweights[], int reorder);
Recipe recipe_ranks(RecipeOp op, MPI_Group group, int n, const int ranks[]);
Recipe recipe_blocks(RecipeOp op, int count, const int blocklengths[], const int displacements[], MPI_Datatype old);
Recipe recipe_blocks(RecipeOp op, int count, const int blocklengths[], const MPI_Aint displacements[],
                     MPI_Datatype old);
Recipe recipe_block(RecipeOp op, int count, int blocklength, const int displacements[], MPI_Datatype old);
Recipe recipe_block(RecipeOp op, int count, int blocklength, const MPI_Aint displacements[], MPI_Datatype old);
Recipe recipe_struct(int count, const int blocklengths[], const MPI_Aint displacements[], const MPI_Datatype types[]);
Recipe recipe_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                       MPI_Datatype old);
Recipe recipe_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[], const int dargs[],
                     const int psizes[], int order, MPI_Datatype old);

// --- requests.cpp
MPI_Request track_send(MPI_Request real, int count, MPI_Datatype datatype, int dest, MPI_Comm comm,
                       CommK::entry* comm_entry, bool persistent);
MPI_Request track_receive(MPI_Request real, int source, MPI_Comm comm, bool persistent);  // not re-postable
// Receives and persistent sends with what a restart needs to post them again (repost.cpp).
MPI_Request track_receive(MPI_Request real, void* buf, int count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, bool persistent);
MPI_Request track_send_init(MPI_Request real, SendMode mode, const void* buf, int count, MPI_Datatype datatype,
                            int dest, int tag, MPI_Comm comm);
MPI_Request track_collective(MPI_Request real, MPI_Comm comm);
MPI_Message track_message(MPI_Message real, MPI_Comm comm);
MPI_Comm message_comm(MPI_Message message);
// The MPI_Wait family without the cut: the library waits, the shim does the bookkeeping (virtual
// requests, statuses, receive counts). What MPI_Wait* do with checkpoints off, and what the polling
// waits (cut/interruptible.cpp) finish with once the library said the requests are complete, so
// that the library's wait returns at once (no nested MPI_Test*, no second scope).
int library_wait(MPI_Request* request, MPI_Status* status);
int library_waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int library_waitany(int count, MPI_Request requests[], int* index, MPI_Status* status);
int library_waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]);

// --- attributes.cpp
void copy_comm_attributes(MPI_Comm from, MPI_Comm to);
void delete_comm_attributes(MPI_Comm comm);
// MPI_Finalize: MPI_COMM_SELF's attributes deleted, their delete callbacks called.
void delete_self_attributes();
void copy_type_attributes(MPI_Datatype from, MPI_Datatype to);
void delete_type_attributes(MPI_Datatype type);
// The keyvals the shim handed out (index = keyval - base) and which are not freed: part of the
// shim's state at a checkpoint (object_image.cpp).
std::vector<KeyvalRecord>& keyval_records();
std::vector<bool>& keyval_live_flags();

// --- datatypes.cpp
void mark_committed(MPI_Datatype type);
// MPI_Type_set_name: in the record, or for a predefined type in g_predefined_type_names.
void remember_type_name(MPI_Datatype type, const char* name);
MPI_Datatype type_from_contents(MPI_Datatype real);

// --- operations.cpp
void release_op_trampoline(MPI_Op op);

// --- info.cpp
InfoRecord info_entries(MPI_Info info);
void mirror_info_set(MPI_Info info, const char* key, const char* value);
void mirror_info_delete(MPI_Info info, const char* key);

}  // namespace yadokari::shim
