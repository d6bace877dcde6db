// Names for communicators that every member computes alike, so that the coordinator can compare
// the members' collective counts (cut_protocol.hpp). The world is 1. A communicator made by a
// call collective over its parent is named from the parent's name, how many communicators the
// parent had made before (the same on every member of the parent) and the logical rank of its
// own first member (different for the pieces of one split). 0 = not part of the cut: a
// communicator of one process never waits for another.
#pragma once

#include "pmpi-layer/src/objects/records.hpp"

#include <cstdint>

namespace yadokari::shim {

inline constexpr std::uint64_t kWorldCutKey = 1;

// `parent` may be null (a creation the shim cannot name alike on every member, e.g.
// MPI_Comm_create_group, which is collective over its group only: its key then comes from
// the members alone).
std::uint64_t child_cut_key(CommRecord* parent, const CommRecord& child);

}  // namespace yadokari::shim
