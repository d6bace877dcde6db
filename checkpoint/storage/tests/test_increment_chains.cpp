// Epochs whose images are increments: the restart choice verifies whole chains and falls back to
// the newest epoch whose chain verifies; retention keeps what a kept epoch's chain needs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/image/image_writer.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"
#include "checkpoint/storage/epoch_store.hpp"
#include "checkpoint/storage/tests/storage_test_support.hpp"

using namespace yadokari::storage;
using namespace yadokari::storage::testing;
using yadokari::image::testing::TempDir;
namespace fs = std::filesystem;
namespace image = yadokari::image;

using Epochs = std::vector<std::uint64_t>;

namespace {

constexpr std::uint32_t kWorld = 2;

// Every rank's image of `epoch` as an increment of `parent`'s: the sample areas unchanged, each a
// delta listing its first page as written. `record_parent` false: a MANIFEST that does not say
// (only the images' headers do).
void commit_increment(const EpochStore& store, std::uint64_t epoch, std::uint64_t parent, bool record_parent = true) {
  store.create_epoch_dir(epoch);
  Manifest manifest{epoch, "yk-test", kWorld, "openmpi", "", {}};
  for (std::uint32_t rank = 0; rank < kWorld; ++rank) {
    const image::ImageReader before(store.rank_image_path(parent, rank).string());
    auto header = image::testing::sample_header(rank, epoch);
    header.world_size = kWorld;
    header.parent = image::ParentImage{parent, before.header_checksum()};
    image::ImageWriter writer(store.rank_image_path(epoch, rank).string(), header);
    const std::vector<image::PageRun> first_page{{0, 1}};
    for (const auto& area : image::testing::sample_areas())
      writer.add_delta_area(area.info, area.data.data(), area.data.size(), first_page, area.data.size());
    auto entry = manifest_image(rank, writer.finish());
    if (!record_parent) entry.parent_epoch = 0;
    manifest.images.push_back(entry);
  }
  store.commit(epoch, manifest);
}

void damage(const EpochStore& store, std::uint64_t epoch, std::uint32_t rank) {
  const auto path = store.rank_image_path(epoch, rank).string();
  const image::ImageReader reader(path);
  image::testing::flip_bit(path, reader.areas()[1].data_offset + 40, 3);
}

}  // namespace

TEST_CASE("chains: an increment's MANIFEST names its parent", "[storage][chain]") {
  TempDir dir;
  const EpochStore store(dir.path());
  commit_sample_epoch(store, 1, kWorld);
  commit_increment(store, 2, 1);
  CHECK(store.read_manifest(1)->images[0].parent_epoch == 0);
  CHECK(store.read_manifest(2)->images[1].parent_epoch == 1);
  CHECK(store.image_chain(2, 1) == std::vector<fs::path>{store.rank_image_path(1, 1), store.rank_image_path(2, 1)});
  CHECK(store.image_chain(1, 1) == std::vector<fs::path>{store.rank_image_path(1, 1)});
}

TEST_CASE("chains: the newest epoch whose whole chain verifies is chosen", "[storage][chain]") {
  TempDir dir;
  const EpochStore store(dir.path());
  commit_sample_epoch(store, 1, kWorld);
  commit_increment(store, 2, 1);
  commit_sample_epoch(store, 3, kWorld);
  commit_increment(store, 4, 3);
  commit_increment(store, 5, 4);
  CHECK(store.newest_good_epoch().epoch == 5u);

  SECTION("a damaged increment") {
    damage(store, 4, 1);
    const auto choice = store.newest_good_epoch();
    CHECK(choice.epoch == 3u);
    CHECK(choice.skipped ==
          std::vector<std::string>{
              "epoch 5: rank-1.img: increment chain: epoch 4: rank-1.img: checksum mismatch in area 'heap'",
              "epoch 4: rank-1.img: checksum mismatch in area 'heap'"});
  }
  SECTION("a damaged base") {
    damage(store, 3, 0);
    const auto choice = store.newest_good_epoch();
    CHECK(choice.epoch == 2u);
    CHECK(choice.skipped ==
          std::vector<std::string>{
              "epoch 5: rank-0.img: increment chain: epoch 3: rank-0.img: checksum mismatch in area 'heap'",
              "epoch 4: rank-0.img: increment chain: epoch 3: rank-0.img: checksum mismatch in area 'heap'",
              "epoch 3: rank-0.img: checksum mismatch in area 'heap'"});
  }
  SECTION("a base that is no longer committed") {
    fs::remove(store.epoch_dir(3) / "MANIFEST");
    const auto choice = store.newest_good_epoch();
    CHECK(choice.epoch == 2u);
    CHECK(choice.skipped == std::vector<std::string>{"epoch 5: rank-0.img: increment chain: epoch 4's rank-0.img is an "
                                                     "increment of epoch 3, which is not committed",
                                                     "epoch 4: rank-0.img: increment chain: epoch 4's rank-0.img is an "
                                                     "increment of epoch 3, which is not committed"});
  }
  SECTION("a base written again for its epoch") {
    // Same epoch, same areas, another image: the increments were not taken against it.
    for (std::uint32_t rank = 0; rank < kWorld; ++rank) {
      auto header = image::testing::sample_header(rank, 3);
      header.world_size = kWorld;
      header.created_unix_ns += 1;
      image::testing::write_image(store.rank_image_path(3, rank).string(), image::testing::sample_areas(), {}, header);
    }
    const auto choice = store.newest_good_epoch();
    CHECK(choice.epoch == 3u);
    REQUIRE(choice.skipped.size() == 2);
    CHECK_THAT(choice.skipped[1],
               Catch::StartsWith("epoch 4: rank-0.img: increment chain: " + store.rank_image_path(4, 0).string() +
                                 ": broken chain: it is an increment of epoch 3 (header "));
  }
}

TEST_CASE("chains: retention keeps every base and increment a kept epoch needs", "[storage][chain][prune]") {
  TempDir dir;
  const EpochStore store(dir.path());
  commit_sample_epoch(store, 1, kWorld);
  commit_increment(store, 2, 1);
  commit_increment(store, 3, 2);
  commit_increment(store, 4, 3);
  CHECK(store.prune(2).empty());  // 3 and 4 are kept, and they are built on 1 and 2
  CHECK(store.prune(1).empty());
  commit_sample_epoch(store, 5, kWorld);
  commit_increment(store, 6, 5);
  CHECK(store.prune(2) == Epochs{1, 2, 3, 4});
  CHECK(store.committed_epochs() == Epochs{5, 6});
  CHECK(store.newest_good_epoch().epoch == 6u);
}

TEST_CASE("chains: retention reads the chain from the images when the MANIFEST does not say",
          "[storage][chain][prune]") {
  TempDir dir;
  const EpochStore store(dir.path());
  commit_sample_epoch(store, 1, kWorld);
  commit_increment(store, 2, 1, false);
  commit_increment(store, 3, 2, false);
  CHECK(store.read_manifest(3)->images[0].parent_epoch == 0);
  CHECK(store.prune(1).empty());
  CHECK(store.newest_good_epoch().epoch == 3u);
}

TEST_CASE("chains: retention keeps everything older than a kept epoch it cannot read", "[storage][chain][prune]") {
  TempDir dir;
  const EpochStore store(dir.path());
  commit_sample_epoch(store, 1, kWorld);
  commit_increment(store, 2, 1);
  commit_sample_epoch(store, 3, kWorld);
  // Epoch 3's image of rank 0 is damaged in its header: whether it is an increment is unknown.
  image::testing::flip_bit(store.rank_image_path(3, 0).string(), 30, 1);
  CHECK(store.prune(1).empty());
  CHECK(store.committed_epochs() == Epochs{1, 2, 3});
}

TEST_CASE("chains: retention takes a chain the caller knows instead of reading it", "[storage][chain][prune]") {
  TempDir dir;
  const EpochStore store(dir.path());
  commit_sample_epoch(store, 1, kWorld);
  commit_increment(store, 2, 1);
  commit_increment(store, 3, 2);
  // Read from the disk, epoch 3 needs 1 and 2; told (falsely, to see which one is used) that it
  // is a full image, retention removes them.
  CHECK(store.ancestors(3) == std::set<std::uint64_t>{1, 2});
  CHECK(store.prune(1, {{3, {}}}) == Epochs{1, 2});
  CHECK(store.committed_epochs() == Epochs{3});
}
