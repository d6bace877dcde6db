// The creation log kept short (core/log_compaction.hpp): entries a restart no longer needs are
// dropped when the log has doubled since the last compaction (so an application that makes and
// frees objects per step keeps it bounded at a constant cost per creation), at every cut before
// the log is saved, and before a replay.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pmpi-layer/src/core/replay_frees.hpp"

namespace yadokari::shim {

// Whether the app holds the virtual handle `v` of an object of kind `kind` now.
bool held_now(std::uint32_t kind, std::uint64_t v);

// The log as core/replay_frees.hpp and core/log_compaction.hpp see it (pointing into the log),
// and whether the app holds what entry i made.
std::vector<LoggedMaking> logged_makings();
bool entry_held_now(std::size_t i);

// Drops the entries nothing needs. Reads every kind's table: not while other threads may make or
// free objects (the cut and the replay run with the application's MPI calls stopped).
void compact_creation_log();

// The log's length at which log_creation compacts it next.
inline std::size_t g_creation_log_compact_at = 4096;

// From log_creation once the log reaches g_creation_log_compact_at: compacts it unless several
// threads may be making objects (then the cut does), and sets the next length.
void compact_grown_creation_log();

}  // namespace yadokari::shim
