// Names for communicators that every member computes alike, so that the coordinator can compare
// the members' collective counts (cut_protocol.hpp). The world is 1. A communicator made by a
// call collective over its parent is named from the parent's name, how many communicators the
// parent had made before (the same on every member of the parent) and the logical rank of its
// own first member (different for the pieces of one split). 0 = not part of the cut: a
// communicator of one process never waits for another.
#pragma once

#include "pmpi-layer/src/objects/records.hpp"

#include <cstdint>
#include <map>

namespace yadokari::shim {

inline constexpr std::uint64_t kWorldCutKey = 1;

// A communicator made by a call collective over `parent` (every member of the parent takes part;
// a member left out of the result counts it in the parent's children_made too, communicators.cpp).
std::uint64_t child_cut_key(CommRecord& parent, const CommRecord& child);

// A communicator made by a call collective over its own members only (MPI_Comm_create_group, or
// a parent the shim does not know): named from its members and from how many communicators this
// rank made over exactly these members before, which every member counts alike (each takes part
// in every such creation). `made_over_group` keeps those counts, by members.
std::uint64_t group_cut_key(const CommRecord& child, std::map<std::uint64_t, std::uint64_t>& made_over_group);

}  // namespace yadokari::shim
