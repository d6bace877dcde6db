#pragma once
// `yadokari restart` of a checkpoint whose images are kept on the nodes (--node-dir): once the
// job's agents run, the epoch is chosen, placed and staged the way an automatic restart does it
// (automatic_restart.hpp), before the first launch.
#include "runtime/control/coordinator.hpp"
#include "runtime/frontend/automatic_restart.hpp"

namespace yadokari::frontend {

// The newest committed epoch of which every rank has a verified copy on a live node (every image of
// its increment chain), placed by the policy on the live nodes, each rank's images copied to its
// node when they are not there yet. Prints the passed-over epochs and the choice. Throws
// FrontendError(failure) "cannot restart: ..." with the reason.
Incarnation restore_node_local(const RestartContext& context, control::Coordinator& coordinator);

}  // namespace yadokari::frontend
