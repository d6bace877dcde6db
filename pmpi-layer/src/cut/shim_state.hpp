// The shim's own state across a restart. It lives in the glibc heap and the shim's globals,
// which are not part of a checkpoint image's memory areas, so it is written out explicitly:
// every handle table with its entries at their old indices (the app holds encoded indices),
// the creation log, attribute keyvals, trampoline slots, the traffic of freed communicators,
// drained messages not delivered yet, and the counters behind the stats.
//
// A restart is a fresh MPI job. In each new process the MPI_Init wrapper runs PMPI_Init and
// after_library_init() (virtual world and MPI_COMM_SELF at their usual indices), then
//   load_shim_state(bytes);      // the records, with no library handle behind them yet
//   replay_creation_log();       // re-creates the objects on the fresh library (replay.hpp)
//   <the application's memory is restored>
//   repost_pending_receives();   // needs the restored memory: it may write drained messages
#pragma once

#include <string>
#include <string_view>

namespace yadokari::shim {

// At a checkpoint, after the consistent cut (drain), before save_shim_state(): completes every
// pending send (the drain received them all) and every non-blocking collective that is done,
// keeping their statuses for the app's Wait/Test. Returns false, with one line in *why, if
// this rank's state cannot be carried across a restart (a non-blocking collective still
// pending, a message from MPI_Mprobe not received yet, a pending MPI_Imrecv). Ranks may answer
// differently: the checkpoint protocol must agree before anyone saves.
bool shim_state_checkpointable(std::string* why);

// The shim's state as bytes. Makes no MPI call. Throws std::runtime_error if
// shim_state_checkpointable() would refuse.
std::string save_shim_state();

// In a fresh process, right after after_library_init() and before replay_creation_log():
// replaces the shim's state by the saved one. Library handles are left null for the replay
// (the virtual world and MPI_COMM_SELF keep the fresh ones). Throws std::runtime_error with a
// one-line message (version, length or consistency problem, or the image of another rank)
// and then leaves the shim's state as it was.
void load_shim_state(std::string_view bytes);

// After replay_creation_log() and the application's memory restore (repost.cpp): every
// receive that was pending at the checkpoint is posted again on the fresh library, in the
// order the app posted them, unless a drained message matches it (then it is delivered into
// the app's buffer and the request completes as if the library had done it). Persistent
// requests get their library request back too (inactive, or started if they were active).
void repost_pending_receives();

// The library's requests behind the app's, given back before the library they belong to goes
// (a test's state round trip, a swap of the library): a receive still pending is cancelled
// (nobody can send it a message: every rank is past the consistent cut, and the drain took
// everything sent before). Returns false if one was matched after all. Its record stays, for
// repost_pending_receives().
bool drop_library_requests();

// For tests of the restart path inside one running job (state_roundtrip.cpp): forgets the
// shim's state as a fresh process would not have it, keeping the virtual world and
// MPI_COMM_SELF as after_library_init() made them.
void forget_shim_state();

}  // namespace yadokari::shim
