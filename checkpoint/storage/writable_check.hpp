#pragma once
// Before a job starts, make sure its checkpoints can be written at all: finding out at the first
// checkpoint, an hour in, is too late.
#include <cstdint>
#include <filesystem>

namespace yadokari::storage {

inline constexpr std::uint64_t kDefaultMinFreeBytes = 64ull << 20;

// Creates `directory` if missing, proves it writable by creating and removing a file, and checks
// that at least `min_free_bytes` are free (statvfs, as an unprivileged writer sees it).
// Throws StorageError with one of:
//   "checkpoint directory D cannot be created: <reason>"
//   "checkpoint directory D is not a directory"
//   "checkpoint directory D is not writable: <reason>"
//   "checkpoint directory D has only N MiB free (at least M MiB needed)"
void check_writable(const std::filesystem::path& directory,
                    std::uint64_t min_free_bytes = kDefaultMinFreeBytes);

}  // namespace yadokari::storage
