// Layout and commit protocol of the checkpoint directory.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "checkpoint/image/file_hash.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"
#include "checkpoint/storage/epoch_store.hpp"
#include "checkpoint/storage/storage_error.hpp"
#include "checkpoint/storage/tests/storage_test_support.hpp"

using namespace yadokari::storage;
using namespace yadokari::storage::testing;
using yadokari::image::testing::TempDir;
namespace fs = std::filesystem;

TEST_CASE("paths follow <dir>/<epoch>/rank-<L>.img", "[storage]") {
  const EpochStore store("/ckpt");
  CHECK(store.epoch_dir(3) == "/ckpt/3");
  CHECK(store.rank_image_path(3, 12) == "/ckpt/3/rank-12.img");
  CHECK(EpochStore::rank_image_name(0) == "rank-0.img");
}

TEST_CASE("an epoch is committed by its MANIFEST", "[storage]") {
  TempDir dir;
  const EpochStore store(dir.path() / "ckpt");
  CHECK(store.committed_epochs().empty());  // a missing directory has no epochs
  CHECK(store.next_epoch() == 1);

  auto manifest = write_sample_epoch(store, 1);
  CHECK(store.all_epochs() == std::vector<std::uint64_t>{1});
  CHECK(store.committed_epochs().empty());
  CHECK_FALSE(store.read_manifest(1).has_value());

  store.commit(1, manifest);
  CHECK(store.committed_epochs() == std::vector<std::uint64_t>{1});
  CHECK_FALSE(fs::exists(store.epoch_dir(1) / "MANIFEST.tmp"));
  const auto read = store.read_manifest(1);
  REQUIRE(read.has_value());
  CHECK(read->commit_time.size() == 20);  // filled in
  manifest.commit_time = read->commit_time;
  CHECK(*read == manifest);
  // The MANIFEST's size and hash are those of the files.
  for (const auto& image : read->images) {
    const auto path = store.epoch_dir(1) / image.file;
    CHECK(fs::file_size(path) == image.size);
    CHECK(yadokari::image::xxh64_of_file(path.string()) == image.xxh64);
  }
  CHECK(store.next_epoch() == 2);
}

TEST_CASE("epochs are sorted numerically and odd entries are ignored", "[storage]") {
  TempDir dir;
  const EpochStore store(dir.path());
  for (const std::uint64_t epoch : {2, 9, 10}) commit_sample_epoch(store, epoch, 1);
  store.create_epoch_dir(11);  // in progress
  fs::create_directories(dir.path() / "07");
  fs::create_directories(dir.path() / "3.old");
  std::ofstream(dir.path() / "12") << "a file, not an epoch";
  CHECK(store.committed_epochs() == std::vector<std::uint64_t>{2, 9, 10});
  CHECK(store.all_epochs() == std::vector<std::uint64_t>{2, 9, 10, 11});
  CHECK(store.next_epoch() == 12);
}

TEST_CASE("commit refuses an incomplete or stale epoch", "[storage]") {
  TempDir dir;
  const EpochStore store(dir.path());
  const std::string path = dir.path().string();

  SECTION("an image is missing") {
    auto manifest = write_sample_epoch(store, 1);
    fs::remove(store.rank_image_path(1, 1));
    CHECK_THROWS_WITH(store.commit(1, manifest), "cannot commit epoch 1: rank-1.img is missing");
  }
  SECTION("an image has another size") {
    auto manifest = write_sample_epoch(store, 1);
    manifest.images[0].size += 1;
    CHECK_THROWS_WITH(store.commit(1, manifest), Catch::Matchers::StartsWith("cannot commit epoch 1: rank-0.img has "));
  }
  SECTION("fewer images than ranks") {
    auto manifest = write_sample_epoch(store, 1);
    manifest.images.pop_back();
    CHECK_THROWS_WITH(store.commit(1, manifest), "cannot commit epoch 1: 1 images for 2 ranks");
  }
  SECTION("a rank listed twice") {
    auto manifest = write_sample_epoch(store, 1);
    manifest.images[1].rank = 0;
    CHECK_THROWS_WITH(store.commit(1, manifest), "cannot commit epoch 1: rank 0 is listed twice or out of range");
  }
  SECTION("the MANIFEST names another epoch") {
    auto manifest = write_sample_epoch(store, 1);
    CHECK_THROWS_WITH(store.commit(2, manifest), "cannot commit epoch 2: its MANIFEST names epoch 1");
  }
  SECTION("not newer than the newest committed epoch") {
    commit_sample_epoch(store, 2);
    auto manifest = write_sample_epoch(store, 1);
    CHECK_THROWS_WITH(store.commit(1, manifest), "cannot commit epoch 1: epoch 2 is already committed");
  }
  CHECK_FALSE(fs::exists(store.epoch_dir(1) / "MANIFEST"));
}

TEST_CASE("check_writable explains what is wrong in one line", "[storage]") {
  TempDir dir;
  SECTION("a missing directory is created") {
    const EpochStore store(dir.path() / "a");
    CHECK_NOTHROW(store.check_writable(0));
    CHECK(fs::is_directory(dir.path() / "a"));
    CHECK(fs::is_empty(dir.path() / "a"));  // the probe file is gone
  }
  SECTION("but not its missing parents (a typo must not grow a tree)") {
    const auto path = dir.path() / "typo" / "ckpt";
    CHECK_THROWS_WITH(EpochStore(path).check_writable(0), "checkpoint directory " + path.string() +
                                                              " cannot be created: " + (dir.path() / "typo").string() +
                                                              " does not exist");
    CHECK_THROWS_WITH(EpochStore(path).create_epoch_dir(1),
                      "cannot create " + path.string() + ": No such file or directory");
    CHECK_FALSE(fs::exists(dir.path() / "typo"));
  }
  SECTION("a file in the way") {
    std::ofstream(dir.path() / "file") << "x";
    const auto path = dir.path() / "file";
    CHECK_THROWS_WITH(EpochStore(path).check_writable(0),
                      "checkpoint directory " + path.string() + " is not a directory");
    CHECK_THROWS_WITH(EpochStore(path / "ckpt").check_writable(0),
                      "checkpoint directory " + (path / "ckpt").string() + " cannot be created: Not a directory");
  }
  SECTION("a read-only file system") {
    const TmpfsMount mount(dir.path() / "ro", "ro,size=1m");
    CHECK_THROWS_WITH(EpochStore(mount.path()).check_writable(0),
                      "checkpoint directory " + mount.path().string() + " is not writable: Read-only file system");
  }
  SECTION("too little free space") {
    const TmpfsMount mount(dir.path() / "small", "size=1m");
    CHECK_NOTHROW(EpochStore(mount.path()).check_writable(512 << 10));
    CHECK_THROWS_WITH(
        EpochStore(mount.path()).check_writable(16 << 20),
        "checkpoint directory " + mount.path().string() + " has only 1 MiB free (at least 16 MiB needed)");
  }
}

TEST_CASE("the epoch after the highest possible number is an error, never a wrap to 0", "[storage]") {
  TempDir dir;
  const EpochStore store(dir.path());
  fs::create_directories(dir.path() / "18446744073709551615");
  CHECK_THROWS_WITH(store.next_epoch(), "no epoch number is left after 18446744073709551615 in " + dir.path().string());
}

TEST_CASE("a checkpoint directory others can write, or someone else's, is refused with the reason", "[storage]") {
  TempDir dir;
  const fs::path open_dir = dir.path() / "shared";
  fs::create_directories(open_dir);
  fs::permissions(open_dir, fs::perms::all);
  CHECK_THROWS_WITH(EpochStore(open_dir).check_writable(0),
                    "checkpoint directory " + open_dir.string() + " is writable by other users (mode 0777); " +
                        "make it private (chmod go-w " + open_dir.string() + ")");
  if (::geteuid() == 0) {  // only root can give a directory away
    const fs::path theirs = dir.path() / "theirs";
    fs::create_directories(theirs);
    REQUIRE(::chown(theirs.c_str(), 65534, 65534) == 0);
    CHECK_THROWS_WITH(EpochStore(theirs).check_writable(0),
                      "checkpoint directory " + theirs.string() +
                          " belongs to uid 65534, not to this user (uid 0); use a directory of your own");
  }
}

TEST_CASE("an epoch directory that exists already is not written into", "[storage]") {
  TempDir dir;
  const EpochStore store(dir.path());
  fs::create_directories(dir.path() / "victim");
  fs::create_directory_symlink(dir.path() / "victim", dir.path() / "5");
  CHECK_THROWS_WITH(store.create_epoch_dir(5), "cannot create " + (dir.path() / "5").string() + ": File exists");
}

// The images are checked and the MANIFEST written in the epoch directory opened once: one swapped
// for a symlink before the commit is refused, and nothing is written where the symlink points.
TEST_CASE("an epoch directory swapped for a symlink is not committed through it", "[storage]") {
  TempDir dir;
  const EpochStore store(dir.path());
  const auto manifest = write_sample_epoch(store, 5);
  fs::rename(dir.path() / "5", dir.path() / "victim");
  fs::create_directory_symlink(dir.path() / "victim", dir.path() / "5");
  CHECK_THROWS_WITH(store.commit(5, manifest),
                    "cannot commit epoch 5: cannot open " + (dir.path() / "5").string() + ": it is a symlink");
  CHECK_FALSE(fs::exists(dir.path() / "victim" / "MANIFEST"));
  CHECK_FALSE(fs::exists(dir.path() / "victim" / "MANIFEST.tmp"));
  CHECK(store.committed_epochs().empty());
}

TEST_CASE("a checkpoint directory made by the check is private whatever the umask", "[storage]") {
  TempDir dir;
  const mode_t before = ::umask(002);
  const fs::path made = dir.path() / "made";
  CHECK_NOTHROW(EpochStore(made).check_writable(0));
  ::umask(before);
  CHECK((fs::status(made).permissions() & (fs::perms::group_write | fs::perms::others_write)) == fs::perms::none);
}
