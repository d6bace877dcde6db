// What the shim keeps about each kind of MPI object besides the library's handle and the
// recipe. Kept apart from the table mechanics so the records can later be serialised into a
// checkpoint image on their own.
#pragma once

#include "pmpi-layer/src/core/channel_table.hpp"
#include "pmpi-layer/src/core/recipe.hpp"

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace yadokari::shim {

struct CommRecord {
  CommChannels channels;
  std::map<int, void*> attributes;                  // shim-managed attribute cache (keyval -> value)
  MPI_Errhandler errhandler = MPI_ERRHANDLER_NULL;  // virtual; NULL = library default
  std::uint64_t collectives_started = 0;            // completed collectives (stats)
  // The consistent cut (cut_protocol.hpp): collectives entered, the communicator's name that every
  // member computes alike (cut_keys.hpp), and how many communicators were made from this one.
  std::uint64_t collectives_entered = 0;
  std::uint64_t cut_key = 0;
  std::uint64_t children_made = 0;
  bool is_world = false;
  std::string name;  // given by MPI_Comm_set_name ("" = none): given again after a restart
};

struct DatatypeRecord {
  std::map<int, void*> attributes;
  bool committed = false;
  std::string name;  // given by MPI_Type_set_name ("" = none): given again after a restart
};

// A user reduction: the library calls a per-op trampoline that hands the app its virtual datatype.
struct OpRecord {
  MPI_User_function* user_fn = nullptr;
  int commute = 1;
  bool fortran = false;  // called with Fortran integer handles (Open MPI Fortran binding)
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
enum class SendMode : std::uint8_t { standard, synchronous, buffered, ready };  // which *send_init

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
  // How the operation was posted, so that a restart can post it again on the fresh library
  // (receives pending at the checkpoint, persistent requests): the app's buffer address (valid
  // after its memory is restored) and virtual handles. `repostable` says the fields are known.
  bool repostable = false;
  bool active = false;  // persistent: started and not completed yet
  SendMode mode = SendMode::standard;
  void* buf = nullptr;
  int count = 0;
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  int tag = 0;
  std::uint64_t posted = 0;  // order of posting (receives match in that order when re-posted)
  // A receive the app freed with MPI_Request_free before it completed: it still takes a message,
  // so the shim keeps it (the app has no handle) until a cut finds it complete and counts it, and
  // a restart posts it again.
  bool freed_by_app = false;
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

}  // namespace yadokari::shim
