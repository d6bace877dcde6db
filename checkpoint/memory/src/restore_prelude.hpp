#pragma once
// The areas after meta and fds that a restore checks before it modifies anything: the table of the
// application's mappings (every range free, every shared file reopened), its process state
// (its working directory exists) and the table of libraries it loaded after start.
#include <cstddef>

#include "checkpoint/memory/areas.hpp"

namespace yadokari::memory {

// Reads those of the areas that come next (`header`/`more` as left by the previous src.next()
// and advanced past them). False with one line in `why`: nothing of this process was changed.
bool read_restore_prelude(AreaSource& src, AreaHeader& header, bool& more, char* why, std::size_t why_len);

// The libraries the application loaded after start, if the prelude read their table: loaded again
// at their addresses (the last step before the restore overwrites memory). False with one line.
bool place_restored_libraries(char* why, std::size_t why_len);

}  // namespace yadokari::memory
