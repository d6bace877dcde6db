// The kinds of virtual handles and what one table entry holds: each kind of object has one
// table (objects/object_state.hpp); an entry holds the real handle of the current incarnation,
// the recipe that made it and the kind's record (objects/records.hpp).
#pragma once

#include "pmpi-layer/src/core/handle_table.hpp"
#include "pmpi-layer/src/core/recipe.hpp"
#include "pmpi-layer/src/objects/records.hpp"

#include <mpi.h>

#include <cstdint>
#include <unordered_map>

namespace yadokari::shim {

template <class Handle, class Record>
struct Entry {
  Handle real{};
  Recipe recipe;
  Record record;
  std::uint32_t references = 1;  // the library hands out extra references (see another_reference)
};

// Kind tags: in MPICH every handle type is `int`, so the kind cannot be told from the C type.
#define YK_KINDS(X)                                                        \
  X(CommK, MPI_Comm, CommRecord, 1, MPI_COMM_NULL, true)                   \
  X(GroupK, MPI_Group, NoRecord, 2, MPI_GROUP_NULL, false)                 \
  X(TypeK, MPI_Datatype, DatatypeRecord, 3, MPI_DATATYPE_NULL, true)       \
  X(ErrhK, MPI_Errhandler, ErrhandlerRecord, 5, MPI_ERRHANDLER_NULL, true) \
  X(OpK, MPI_Op, OpRecord, 6, MPI_OP_NULL, false)                          \
  X(InfoK, MPI_Info, InfoRecord, 7, MPI_INFO_NULL, false)                  \
  X(ReqK, MPI_Request, RequestRecord, 11, MPI_REQUEST_NULL, false)         \
  X(MsgK, MPI_Message, MessageRecord, 12, MPI_MESSAGE_NULL, false)

// Each kind: handle type, record type, kind code, null handle, and whether the shim needs to map
// a real handle back to its virtual one (the library hands real comms to error handlers and real
// datatypes to user ops and MPI_Type_get_contents).
#define YK_DECLARE_KIND(Tag, H, Rec, Code, Null, Reverse) \
  struct Tag {                                            \
    using handle = H;                                     \
    using record = Rec;                                   \
    using entry = Entry<H, Rec>;                          \
    static constexpr std::uint32_t code = Code;           \
    static constexpr bool reverse_map = Reverse;          \
    static H null() { return Null; }                      \
    static constexpr const char* name = #H;               \
  };
YK_KINDS(YK_DECLARE_KIND)
#undef YK_DECLARE_KIND

template <class K>
struct Registry {
  HandleTable<typename K::entry> table;
  std::unordered_map<std::uint64_t, std::uint32_t> by_real;  // only if K::reverse_map
};

// Every object-creating call of the app, in order, with its recipe and the virtual handle it
// returned (0 for a null result: a collective creation that gave this rank MPI_COMM_NULL still
// has to be repeated by it). Replaying the log re-creates the app's objects on a fresh library
// (replay.cpp), parents before children, including parents the app has freed since; entries
// nothing needs any more are dropped (creation_log.hpp).
struct CreationRecord {
  std::uint32_t kind;
  Recipe recipe;
  std::uint64_t result;
};

}  // namespace yadokari::shim
