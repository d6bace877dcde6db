#pragma once
// The kept process's side of a stand-in's hand-over (protocol/launcher_handoff.hpp): it listens
// for the stand-in a new launch starts in its place, takes what that launcher gave the stand-in
// (variables, standard streams, MPICH's PMI socket) as its own, and tells the stand-in its exit
// status when it ends.
#include <optional>
#include <string>

#include "protocol/launcher_handoff.hpp"

namespace yadokari::shim::swap {

// Listens at `path` (a stale socket file there is replaced). -1 with `why` on failure.
int listen_for_stand_in(const std::string& path, std::string& why);

// Waits (at most `timeout_seconds`) for the stand-in; keeps its connection for the exit status.
std::optional<protocol::Handoff> wait_for_stand_in(int listener, double timeout_seconds, std::string& why);

// The launcher's variables replace the previous launcher's (one not set again must not linger);
// the stand-in's stdout and stderr become the process's; PMI_FD names the socket received. Before
// the next copy of the MPI library is loaded: its C library reads the environment then.
void take_launch(const protocol::Handoff& launch);

// The status goes to the stand-in of the newest launch when the process exits; `status` now if it
// cannot go on (then the process ends here).
[[noreturn]] void end_with(int status);

}  // namespace yadokari::shim::swap
