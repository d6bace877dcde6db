// Pruning keeps the newest K committed epochs and never touches what may still be in progress.
#include <catch2/catch.hpp>

#include <filesystem>

#include "checkpoint/image/tests/image_test_support.hpp"
#include "checkpoint/storage/epoch_store.hpp"
#include "checkpoint/storage/tests/storage_test_support.hpp"

using namespace yadokari::storage;
using namespace yadokari::storage::testing;
using yadokari::image::testing::TempDir;
namespace fs = std::filesystem;

using Epochs = std::vector<std::uint64_t>;

TEST_CASE("prune keeps the newest K committed epochs", "[storage][prune]") {
  TempDir dir;
  const EpochStore store(dir.path());
  for (std::uint64_t epoch = 1; epoch <= 5; ++epoch) commit_sample_epoch(store, epoch, 1);
  CHECK(store.prune(2) == Epochs{1, 2, 3});
  CHECK(store.committed_epochs() == Epochs{4, 5});
  CHECK(store.all_epochs() == Epochs{4, 5});
  CHECK(store.prune(2).empty());
  CHECK(store.newest_good_epoch().epoch == 5u);
}

TEST_CASE("the newest committed epoch survives any keep value", "[storage][prune]") {
  TempDir dir;
  const EpochStore store(dir.path());
  commit_sample_epoch(store, 1, 1);
  commit_sample_epoch(store, 2, 1);
  CHECK(store.prune(0) == Epochs{1});
  CHECK(store.committed_epochs() == Epochs{2});
  CHECK(store.prune(1).empty());
}

TEST_CASE("epochs newer than the newest committed one are left alone", "[storage][prune]") {
  TempDir dir;
  const EpochStore store(dir.path());
  commit_sample_epoch(store, 1, 1);
  commit_sample_epoch(store, 2, 1);
  write_sample_epoch(store, 3, 1);  // being written right now
  store.create_epoch_dir(4);
  CHECK(store.prune(1) == Epochs{1});
  CHECK(store.all_epochs() == Epochs{2, 3, 4});
  CHECK(fs::exists(store.rank_image_path(3, 0)));
}

TEST_CASE("stale uncommitted directories older than the newest committed epoch go", "[storage][prune]") {
  TempDir dir;
  const EpochStore store(dir.path());
  commit_sample_epoch(store, 1, 1);
  write_sample_epoch(store, 2, 1);  // a checkpoint that failed and was never committed
  commit_sample_epoch(store, 3, 1);
  CHECK(store.prune(2) == Epochs{2});
  CHECK(store.all_epochs() == Epochs{1, 3});
}

TEST_CASE("with nothing committed, prune removes nothing", "[storage][prune]") {
  TempDir dir;
  const EpochStore store(dir.path());
  write_sample_epoch(store, 1, 1);
  CHECK(store.prune(1).empty());
  CHECK(store.all_epochs() == Epochs{1});
}
