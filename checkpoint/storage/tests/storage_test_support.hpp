#pragma once
// Epochs made of sample images, and tmpfs mounts for the disk-full and read-only cases.
#include <cstdint>
#include <filesystem>
#include <string>

#include "checkpoint/storage/epoch_store.hpp"

namespace yadokari::storage::testing {

// Writes rank-0..rank-(world-1) images for `epoch` and returns the MANIFEST that commits them
// (not committed yet).
Manifest write_sample_epoch(const EpochStore& store, std::uint64_t epoch, std::uint32_t world_size = 2);

// write_sample_epoch + commit.
Manifest commit_sample_epoch(const EpochStore& store, std::uint64_t epoch, std::uint32_t world_size = 2);

// A tmpfs mounted at `path` (created if missing) for the object's lifetime. Needs root; throws
// std::runtime_error with the reason if the mount fails, so a test fails loudly instead of skipping.
class TmpfsMount {
 public:
  TmpfsMount(const std::filesystem::path& path, const std::string& options);
  ~TmpfsMount();
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace yadokari::storage::testing
