#pragma once
// How many committed epochs to keep: YADOKARI_KEEP, default 2 (the newest and one to fall back to).
namespace yadokari::storage {

inline constexpr unsigned kDefaultKeep = 2;

// Throws StorageError for a value that is not a whole number of at least 1.
unsigned keep_from_environment();

}  // namespace yadokari::storage
