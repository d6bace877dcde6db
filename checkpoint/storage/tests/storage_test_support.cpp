#include "checkpoint/storage/tests/storage_test_support.hpp"

#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "checkpoint/image/image_writer.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"

namespace yadokari::storage::testing {

Manifest write_sample_epoch(const EpochStore& store, std::uint64_t epoch, std::uint32_t world_size) {
  store.create_epoch_dir(epoch);
  Manifest manifest{epoch, "yk-test", world_size, "openmpi", "", {}};
  for (std::uint32_t rank = 0; rank < world_size; ++rank) {
    auto header = image::testing::sample_header(rank, epoch);
    header.world_size = world_size;
    const auto written = image::testing::write_image(store.rank_image_path(epoch, rank).string(),
                                                     image::testing::sample_areas(), {}, header);
    manifest.images.push_back(manifest_image(rank, written));
  }
  return manifest;
}

Manifest commit_sample_epoch(const EpochStore& store, std::uint64_t epoch, std::uint32_t world_size) {
  auto manifest = write_sample_epoch(store, epoch, world_size);
  store.commit(epoch, manifest);
  return *store.read_manifest(epoch);
}

TmpfsMount::TmpfsMount(const std::filesystem::path& path, const std::string& options) : path_(path) {
  std::filesystem::create_directories(path_);
  // mode=0700: a checkpoint directory must be private (a tmpfs root is 1777 otherwise).
  const std::string with_mode = options + (options.empty() ? "" : ",") + "mode=0700";
  if (::mount("tmpfs", path_.c_str(), "tmpfs", 0, with_mode.c_str()) != 0)
    throw std::runtime_error("cannot mount a tmpfs (" + options + ") on " + path_.string() +
                             " (this test needs root): " + std::strerror(errno));
}

TmpfsMount::~TmpfsMount() { ::umount2(path_.c_str(), MNT_DETACH); }

}  // namespace yadokari::storage::testing
