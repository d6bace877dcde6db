// Which objects the restart's replay may free again, and when (cut/replay.cpp). The creation log
// keeps the objects the application made, freed ones too where a later object may have been made
// from one or the making was collective (core/log_compaction.hpp): every member of a communicator
// must take part in each collective creation its peers replay, so the replay makes them all again
// in order. Kept alive, the freed ones would pile up
// (an application that dups and frees a communicator per step has thousands: MPICH runs out of
// context ids near 2,000). So each one nothing holds at the end is freed again as soon as nothing
// later in the log is made from it. MPI-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace yadokari::shim {

// Entry i of a creation log: the virtual handle it made (0: none) and those it was made from. A
// handle made again later (the application freed it and got it back for a new object) is a new
// object from there on.
struct LoggedMaking {
  std::uint64_t made = 0;
  const std::vector<std::uint64_t>* from = nullptr;
};

// For each entry j, the entries whose objects can be freed once entry j has been replayed: every
// object but those held now (the entry is the latest that made its handle, and `held_now(i)`: the
// application still holds the handle entry i made), after the last entry made from it, or at once
// when none is.
std::vector<std::vector<std::size_t>> replay_frees(const std::vector<LoggedMaking>& log,
                                                   const std::function<bool(std::size_t)>& held_now);

}  // namespace yadokari::shim
