// Names for communicators that every member computes alike, so that the coordinator can compare
// the members' collective counts (cut_protocol.hpp). The world is 1. A communicator made by a
// call collective over its parent is named from the parent's name, how many communicators the
// parent had made before (the same on every member of the parent) and its smallest member
// (different for the pieces of one split); one made by a call collective over its own members
// only, from those members and how many were made over exactly them before. Members are logical
// ranks, both groups of an intercommunicator. 0 = not part of the cut: a communicator of one
// process never waits for another.
#pragma once

#include "pmpi-layer/src/objects/records.hpp"

#include <cstdint>
#include <map>
#include <vector>

namespace yadokari::shim {

inline constexpr std::uint64_t kWorldCutKey = 1;

// A communicator made by a call collective over `parent` (every member of the parent takes part;
// a member left out of the result counts it in the parent's children_made too, communicators.cpp).
// `members`: the child's members, sorted.
std::uint64_t child_cut_key(CommRecord& parent, const std::vector<int>& members);

// A communicator made by a call collective over its own members only (MPI_Comm_create_group,
// MPI_Intercomm_create, or a parent the shim does not know). Every member takes part in every
// creation over exactly these members, so how many came before is the same on each of them;
// `made_over_group` keeps those counts, by members. `members`: sorted.
std::uint64_t group_cut_key(const std::vector<int>& members, std::map<std::uint64_t, std::uint64_t>& made_over_group);

}  // namespace yadokari::shim
