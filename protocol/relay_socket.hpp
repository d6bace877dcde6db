#pragma once
// Where a node's agent listens for the ranks of its node (runtime/agent/rank_relay.hpp), so that
// both find it from what they already know: the job id and the host name. The socket lives in a
// directory only its user can enter, so only that user's processes (the job's) can connect to it
// or put a socket there; the link to the coordinator beyond the agent is encrypted as ever.
#include <chrono>
#include <string>
#include <string_view>

namespace yadokari::protocol {

// /tmp/yadokari-relay-<uid>/<job id>.<host name>.sock; a host name too long for a socket path is
// replaced by a digest of it.
std::string relay_socket_path(std::string_view job_id, std::string_view hostname);

// Creates the relay directory (mode 0700) if needed; "" when it is usable, else why not (it is
// not a directory, or belongs to someone else, or is open to others).
std::string prepare_relay_directory();

// True when something accepts connections on the socket at `path` (an agent that ended leaves no
// socket behind, but one that was killed does; a rank must not send into that).
bool relay_listening(const std::string& path);

// Removes the sockets in the relay directory that agents killed long ago left (nothing accepts
// connections on them, and they are older than `older_than`: a socket just bound may not listen
// yet). Every job leaves one per node whose agent was SIGKILLed; returns how many were removed.
int remove_dead_relay_sockets(std::chrono::seconds older_than);

}  // namespace yadokari::protocol
