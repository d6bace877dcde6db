// What the shim keeps about each kind of MPI object besides the library's handle and the
// recipe. Kept apart from the table mechanics so the records can later be serialised into a
// checkpoint image on their own.
#pragma once

#include "core/channel_table.hpp"
#include "core/recipe.hpp"

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace yk {

struct CommRecord {
  CommChannels channels;
  std::map<int, void*> attributes;          // shim-managed attribute cache (keyval -> value)
  MPI_Errhandler errhandler = MPI_ERRHANDLER_NULL;  // virtual; NULL = library default
  std::uint64_t collectives_started = 0;    // per-communicator sequence number (consistent cut)
  bool is_world = false;
};

struct DatatypeRecord {
  std::map<int, void*> attributes;
  bool committed = false;
};

// A user reduction: the library calls a per-op trampoline that hands the app its virtual datatype.
struct OpRecord {
  MPI_User_function* user_fn = nullptr;
  int commute = 1;
  bool fortran = false;   // called with Fortran integer handles (Open MPI Fortran binding)
  int trampoline = -1;
};

struct ErrhandlerRecord {
  MPI_Comm_errhandler_function* user_fn = nullptr;
  bool fortran = false;
  int trampoline = -1;
};

struct InfoRecord {
  std::map<std::string, std::string> entries;  // mirror of the key/value pairs, for re-creation
};

enum class RequestKind : std::uint8_t { send, receive, collective, other };

// A pending operation. Sends are counted when posted (from then on the message may be in
// flight); receives when they complete, from the status (the source may be MPI_ANY_SOURCE).
struct RequestRecord {
  RequestKind kind = RequestKind::other;
  bool persistent = false;
  MPI_Comm comm = MPI_COMM_NULL;  // virtual
  int peer = MPI_PROC_NULL;       // as posted (receives: may be MPI_ANY_SOURCE)
  std::uint64_t bytes = 0;        // sends: message size, for persistent re-starts
  // Completed by the shim, not the library: a receive matched from drained messages, or one the
  // consistent cut found complete. Wait/Test hand out `status` and must not count it again.
  bool completed_by_shim = false;
  MPI_Status status{};
};

struct KeyvalRecord {
  MPI_Comm_copy_attr_function* copy_fn = nullptr;
  MPI_Comm_delete_attr_function* delete_fn = nullptr;
  MPI_Type_copy_attr_function* type_copy_fn = nullptr;
  MPI_Type_delete_attr_function* type_delete_fn = nullptr;
  void* extra_state = nullptr;
};

struct MessageRecord {
  MPI_Comm comm = MPI_COMM_NULL;  // virtual: a matched message is received on its communicator
};

struct NoRecord {};

}  // namespace yk
