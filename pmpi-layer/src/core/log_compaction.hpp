// Which entries of a creation log (objects/virtual_handles.hpp) a restart still needs. The log
// keeps every object the application made, in order; an application that makes and frees a
// datatype, a group or an info per step would grow it without end (memory, image size, and a
// restart that re-makes millions of objects). An entry can go when nothing needs it:
// - a collective creation (a communicator, null results included) always stays: each member must
//   take part in every creation its peers replay, and a peer may still hold what came of it;
// - an object the application holds now stays (its latest making), and so does every entry it
//   was made from, transitively;
// - any other entry (a freed local object nothing kept was made from) can be dropped.
// MPI-free.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "pmpi-layer/src/core/replay_frees.hpp"

namespace yadokari::shim {

// needed[i]: entry i must stay in the log. `collective(i)`: entry i's making was collective;
// `held_now(i)`: the application holds the handle entry i made (asked only of an entry that is the
// latest making of its handle).
std::vector<bool> entries_needed(const std::vector<LoggedMaking>& log,
                                 const std::function<bool(std::size_t)>& collective,
                                 const std::function<bool(std::size_t)>& held_now);

}  // namespace yadokari::shim
