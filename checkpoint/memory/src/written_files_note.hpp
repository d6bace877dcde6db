#pragma once
// The restore's side of written_files.hpp: what it lists while it reopens the application's files.
#include <cstdint>

namespace yadokari::memory {

// One per carried descriptor (fd_table.hpp's kMaxAppFds, checked there) and per shared file
// mapping (app_mappings.hpp's kMaxMappings) at most.
inline constexpr int kMaxWrittenFiles = 128 + 256;

// At the start of a restore.
void forget_written_files();
// A file reopened for writing and its size at the checkpoint; `path` must live as long as the
// process (the restore's records do).
void note_written_file(const char* path, std::int64_t size);

}  // namespace yadokari::memory
