// A restart takes the newest committed epoch whose images all verify, and says why it passed
// over newer ones.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"
#include "checkpoint/storage/epoch_store.hpp"
#include "checkpoint/storage/storage_error.hpp"
#include "checkpoint/storage/tests/storage_test_support.hpp"

using namespace yadokari::storage;
using namespace yadokari::storage::testing;
using yadokari::image::ImageReader;
using yadokari::image::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// Flips a bit in the middle of the heap area of an image.
void damage_heap(const fs::path& image) {
  std::uint64_t offset = 0;
  {
    const ImageReader reader(image.string());
    const auto* heap = reader.find("heap");
    REQUIRE(heap != nullptr);
    offset = heap->data_offset + heap->stored_length / 2;
  }
  yadokari::image::testing::flip_bit(image.string(), offset, 2);
}

}  // namespace

TEST_CASE("the newest committed epoch is chosen when it is good", "[storage][restart]") {
  TempDir dir;
  const EpochStore store(dir.path());
  commit_sample_epoch(store, 1);
  const auto manifest = commit_sample_epoch(store, 2);
  write_sample_epoch(store, 3);  // never committed: not a candidate
  const auto choice = store.newest_good_epoch();
  CHECK(choice.epoch == 2u);
  CHECK(choice.manifest == manifest);
  CHECK(choice.skipped.empty());
}

TEST_CASE("a damaged newest epoch falls back to the previous one, saying why", "[storage][restart]") {
  TempDir dir;
  const EpochStore store(dir.path());
  commit_sample_epoch(store, 2);
  commit_sample_epoch(store, 3);
  const auto image = store.rank_image_path(3, 1);
  std::string why;

  SECTION("a flipped bit") {
    damage_heap(image);
    why = "epoch 3: rank-1.img: checksum mismatch in area 'heap'";
  }
  SECTION("a truncated image") {
    const auto size = fs::file_size(image);
    fs::resize_file(image, size - 100);
    why = "epoch 3: rank-1.img: " + std::to_string(size - 100) + " bytes, MANIFEST says " + std::to_string(size);
  }
  SECTION("a missing image") {
    fs::remove(image);
    why = "epoch 3: rank-1.img: missing";
  }
  SECTION("another rank's image in its place") {
    fs::copy_file(store.rank_image_path(3, 0), image, fs::copy_options::overwrite_existing);
    auto manifest = *store.read_manifest(3);
    manifest.images[1].size = fs::file_size(image);
    fs::remove(store.epoch_dir(3) / "MANIFEST");
    std::ofstream(store.epoch_dir(3) / "MANIFEST") << to_json_text(manifest);
    why = "epoch 3: rank-1.img: holds job yk-test rank 0 epoch 3, not job yk-test rank 1 epoch 3";
  }
  SECTION("an unreadable MANIFEST") {
    std::ofstream(store.epoch_dir(3) / "MANIFEST") << "{not json";
    why = "epoch 3: MANIFEST: unreadable: ";
  }
  const auto choice = store.newest_good_epoch();
  CHECK(choice.epoch == 2u);
  REQUIRE(choice.skipped.size() == 1);
  CHECK_THAT(choice.skipped[0], Catch::Matchers::StartsWith(why));
  if (why.back() != ' ') CHECK(choice.skipped[0] == why);
}

TEST_CASE("no good epoch at all is an empty choice with every reason", "[storage][restart]") {
  TempDir dir;
  const EpochStore store(dir.path());
  CHECK_FALSE(store.newest_good_epoch().epoch.has_value());
  commit_sample_epoch(store, 1);
  commit_sample_epoch(store, 2);
  damage_heap(store.rank_image_path(1, 0));
  fs::remove(store.rank_image_path(2, 1));
  const auto choice = store.newest_good_epoch();
  CHECK_FALSE(choice.epoch.has_value());
  CHECK_FALSE(choice.manifest.has_value());
  CHECK(choice.skipped == std::vector<std::string>{"epoch 2: rank-1.img: missing",
                                                   "epoch 1: rank-0.img: checksum mismatch in area 'heap'"});
}

TEST_CASE("the verifier is the caller's to choose", "[storage][restart]") {
  TempDir dir;
  const EpochStore store(dir.path());
  commit_sample_epoch(store, 1, 3);
  commit_sample_epoch(store, 2, 3);
  std::vector<std::string> seen;
  const auto choice =
      store.newest_good_epoch([&](const fs::path& image, const Manifest& manifest, const ManifestImage& entry) {
        seen.push_back(std::to_string(manifest.epoch) + "/" + image.filename().string());
        if (manifest.epoch == 2 && entry.rank == 1) throw StorageError("refused by the test");
      });
  CHECK(choice.epoch == 1u);
  CHECK(choice.skipped == std::vector<std::string>{"epoch 2: rank-1.img: refused by the test"});
  // Epoch 2 stops at its first bad image; epoch 1 is checked whole.
  CHECK(seen ==
        std::vector<std::string>{"2/rank-0.img", "2/rank-1.img", "1/rank-0.img", "1/rank-1.img", "1/rank-2.img"});
}
