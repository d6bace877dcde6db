#pragma once
// Before a job starts, make sure its checkpoints can be written at all: finding out at the first
// checkpoint, an hour in, is too late.
#include <cstdint>
#include <filesystem>

namespace yadokari::storage {

inline constexpr std::uint64_t kDefaultMinFreeBytes = 64ull << 20;

// Throws StorageError unless `directory` belongs to this user and no one else may write to it:
//   "checkpoint directory D belongs to uid U, not to this user (uid V); use a directory of your own"
//   "checkpoint directory D is writable by other users (mode 0777); make it private (chmod go-w D)"
void check_private(const std::filesystem::path& directory);

// Creates `directory` if missing, checks that it is private (check_private), proves it writable by
// creating and removing a file, and checks that at least `min_free_bytes` are free (statvfs, as
// an unprivileged writer sees it). Throws StorageError with one of check_private's, or:
//   "checkpoint directory D cannot be created: <reason>"
//   "checkpoint directory D is not a directory"
//   "checkpoint directory D is not writable: <reason>"
//   "checkpoint directory D has only N MiB free (at least M MiB needed)"
void check_writable(const std::filesystem::path& directory, std::uint64_t min_free_bytes = kDefaultMinFreeBytes);

}  // namespace yadokari::storage
