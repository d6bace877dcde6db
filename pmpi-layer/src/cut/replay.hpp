// Re-creating the application's MPI objects on the library of the current incarnation from the
// creation log (virtual_handles.hpp): every communicator, group, datatype, op, error handler and
// info the app ever made, in the order it made them, so that parents exist before children and
// collective creations are repeated by every rank that took part. Afterwards every live virtual
// handle points at its new library object; objects the app had freed are freed again.
#pragma once

#include "pmpi-layer/src/cut/cut_state.hpp"  // g_objects_replayed

#include <cstdint>

namespace yadokari::shim {

// Collective over the virtual world (communicator creations are collective). Returns the
// number of calls replayed.
std::uint64_t replay_creation_log();

}  // namespace yadokari::shim
