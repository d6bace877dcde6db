// A checkpoint into a full file system fails with a clear error, leaves no partial image under
// its final name, and never touches the older committed epoch (a 1 MiB tmpfs; needs root).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_writer.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"
#include "checkpoint/storage/epoch_store.hpp"
#include "checkpoint/storage/storage_error.hpp"
#include "checkpoint/storage/tests/storage_test_support.hpp"

using namespace yadokari::storage;
using namespace yadokari::storage::testing;
using namespace yadokari::image;
namespace image_testing = yadokari::image::testing;
using yadokari::image::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// Everything about a committed epoch that must not change: its files and their bytes.
std::map<std::string, std::vector<std::byte>> snapshot(const fs::path& epoch_dir) {
  std::map<std::string, std::vector<std::byte>> files;
  for (const auto& entry : fs::directory_iterator(epoch_dir))
    files[entry.path().filename().string()] = image_testing::read_bytes(entry.path().string());
  return files;
}

}  // namespace

TEST_CASE("writing an image into a full file system fails cleanly", "[storage][disk-full]") {
  TempDir dir;
  const TmpfsMount mount(dir.path() / "ckpt", "size=1m");
  const EpochStore store(mount.path());
  commit_sample_epoch(store, 1, 1);
  const auto before = snapshot(store.epoch_dir(1));

  store.create_epoch_dir(2);
  const std::string path = store.rank_image_path(2, 0).string();
  const auto big = image_testing::random_bytes(2u << 20, 9);  // incompressible, twice the file system
  SECTION("raw") {
    try {
      ImageWriter writer(path, image_testing::sample_header(0, 2));
      writer.add_area({AreaKind::heap_arena, "heap", 0x1000, kProtRead | kProtWrite}, big);
      writer.finish();
      FAIL("the image was written");
    } catch (const ImageError& e) {
      CHECK(e.kind() == ImageErrorKind::io);
      CHECK(std::string(e.what()) == path + ": I/O error while writing: No space left on device");
    }
  }
  SECTION("compressed, many small areas (the error surfaces from the buffer)") {
    try {
      ImageWriter writer(path, image_testing::sample_header(0, 2), {3, true});
      for (std::size_t i = 0; i < 64; ++i)
        writer.add_area({AreaKind::other, "blob-" + std::to_string(i), 0, kProtRead},
                        std::span(big).subspan(i * 32768, 32768));
      writer.finish();
      FAIL("the image was written");
    } catch (const ImageError& e) {
      CHECK(e.kind() == ImageErrorKind::io);
      CHECK(std::string(e.what()) == path + ": I/O error while writing: No space left on device");
    }
  }
  CHECK(fs::is_empty(store.epoch_dir(2)));  // neither rank-0.img nor rank-0.img.tmp
  CHECK(snapshot(store.epoch_dir(1)) == before);
  CHECK(store.committed_epochs() == std::vector<std::uint64_t>{1});
  const auto choice = store.newest_good_epoch();
  CHECK(choice.epoch == 1u);
  CHECK(choice.skipped.empty());
}

TEST_CASE("committing into a full file system fails and leaves the epoch uncommitted", "[storage][disk-full]") {
  TempDir dir;
  const TmpfsMount mount(dir.path() / "ckpt", "size=1m");
  const EpochStore store(mount.path());
  commit_sample_epoch(store, 1, 1);
  const auto before = snapshot(store.epoch_dir(1));
  const auto manifest = write_sample_epoch(store, 2, 1);
  {
    // Fill every remaining block.
    std::ofstream filler(mount.path() / "filler", std::ios::binary);
    const std::vector<char> chunk(4096, 'x');
    while (filler.write(chunk.data(), chunk.size())) filler.flush();
  }
  CHECK_THROWS_WITH(store.commit(2, manifest),
                    Catch::Matchers::EndsWith("No space left on device") &&
                        Catch::Matchers::Contains((store.epoch_dir(2) / "MANIFEST.tmp").string()));
  CHECK_FALSE(fs::exists(store.epoch_dir(2) / "MANIFEST"));
  CHECK_FALSE(fs::exists(store.epoch_dir(2) / "MANIFEST.tmp"));
  CHECK(store.committed_epochs() == std::vector<std::uint64_t>{1});
  CHECK(snapshot(store.epoch_dir(1)) == before);
}
