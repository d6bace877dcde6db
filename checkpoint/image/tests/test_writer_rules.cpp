// The writer's promises: only a complete image has the final name; errors are clear and leave
// nothing behind.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>

#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/image/image_writer.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"

using namespace yadokari::image;
using namespace yadokari::image::testing;
namespace fs = std::filesystem;

TEST_CASE("the final name appears only when the image is complete", "[image][writer]") {
  TempDir dir;
  const std::string path = dir.file("rank-0.img");
  const auto area = sample_areas()[1];
  {
    ImageWriter writer(path, sample_header());
    writer.add_area(area.info, area.data);
    CHECK(fs::exists(path + ".tmp"));
    CHECK_FALSE(fs::exists(path));
    writer.finish();
    CHECK(fs::exists(path));
    CHECK_FALSE(fs::exists(path + ".tmp"));
    CHECK(fs::status(path).permissions() == (fs::perms::owner_read | fs::perms::owner_write));
  }
  CHECK(fs::exists(path));  // destroying a finished writer keeps the image
}

TEST_CASE("an unfinished writer removes its temporary file", "[image][writer]") {
  TempDir dir;
  const std::string path = dir.file("rank-0.img");
  {
    ImageWriter writer(path, sample_header());
    writer.add_area(sample_areas()[0].info, sample_areas()[0].data);
  }
  CHECK_FALSE(fs::exists(path + ".tmp"));
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("rewriting an image replaces the old one whole", "[image][writer]") {
  TempDir dir;
  const std::string path = dir.file("rank-0.img");
  write_image(path, sample_areas());
  {
    ImageWriter writer(path, sample_header(1, 9));
    writer.add_area(sample_areas()[0].info, sample_areas()[0].data);
    CHECK(ImageReader(path).header().epoch == 3);  // the old one is intact until finish()
  }
  CHECK(ImageReader(path).header().epoch == 3);  // and after an abandoned rewrite
}

TEST_CASE("the writer refuses bad areas and then stays finished", "[image][writer]") {
  TempDir dir;
  const std::string path = dir.file("rank-0.img");
  ImageWriter writer(path, sample_header());
  const std::byte byte{1};
  AreaInfo info{AreaKind::other, std::string(65, 'n'), 0, kProtRead};
  try {
    writer.add_area(info, &byte, 1);
    FAIL("a 65-byte name was accepted");
  } catch (const ImageError& e) {
    CHECK(e.kind() == ImageErrorKind::usage);
    CHECK(e.detail() == "area name '" + info.name + "' is longer than 64 bytes or contains a NUL byte");
  }
  info.name = std::string(64, 'n');
  CHECK_NOTHROW(writer.add_area(info, &byte, 1));  // 64 is fine
  info.name = std::string("a\0b", 3);
  CHECK_THROWS_AS(writer.add_area(info, &byte, 1), ImageError);
  writer.finish();
  try {
    writer.add_area(info, &byte, 1);
    FAIL("a finished writer accepted an area");
  } catch (const ImageError& e) {
    CHECK(e.detail() == "the image writer is already finished");
  }
}

TEST_CASE("a long area name survives the round trip", "[image][writer]") {
  TempDir dir;
  const std::string name(64, 'x');
  const std::byte byte{7};
  ImageWriter writer(dir.file("a.img"), sample_header());
  writer.add_area({AreaKind::other, name, 0, kProtRead}, &byte, 1);
  writer.finish();
  CHECK(ImageReader(dir.file("a.img")).areas().at(0).name == name);
}

TEST_CASE("an image cannot be created in a missing directory", "[image][writer]") {
  TempDir dir;
  const std::string path = dir.file("missing/rank-0.img");
  try {
    ImageWriter writer(path, sample_header());
    FAIL("created");
  } catch (const ImageError& e) {
    CHECK(e.kind() == ImageErrorKind::io);
    CHECK(std::string(e.what()) == path + ": I/O error while creating " + path + ".tmp: No such file or directory");
  }
}

TEST_CASE("the writer fills in the creation time when it is not given", "[image][writer]") {
  TempDir dir;
  auto header = sample_header();
  header.created_unix_ns = 0;
  write_image(dir.file("a.img"), {}, {}, header);
  const auto created = ImageReader(dir.file("a.img")).header().created_unix_ns;
  const auto now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  CHECK(created > now - 60'000'000'000LL);
  CHECK(created <= now);
}

TEST_CASE("a symlink planted as the temporary image is not followed", "[image][writer]") {
  TempDir dir;
  const std::string victim = dir.file("victim");
  write_bytes(victim, {std::byte{'x'}, std::byte{'y'}});
  const std::string path = dir.file("rank-0.img");
  fs::create_symlink(victim, path + ".tmp");
  const auto areas = sample_areas();
  write_image(path, areas);
  CHECK(read_bytes(victim) == std::vector<std::byte>{std::byte{'x'}, std::byte{'y'}});
  CHECK_FALSE(fs::is_symlink(path));
  CHECK_NOTHROW(ImageReader(path));
}

// The audit's attack (issue 18): a user who can write the checkpoint directory swaps an epoch
// directory for a symlink while a rank writes its image. The writer opened the directory once and
// names everything relative to it, so the image still lands in the directory it opened.
TEST_CASE("an epoch directory swapped for a symlink mid-write does not redirect the image", "[image][writer]") {
  TempDir dir;
  fs::create_directories(dir.path() / "5");
  fs::create_directories(dir.path() / "victim");
  const std::string path = dir.file("5/rank-0.img");
  const auto area = sample_areas()[1];
  ImageWriter writer(path, sample_header());
  writer.add_area(area.info, area.data);
  fs::rename(dir.path() / "5", dir.path() / "moved");
  fs::create_directory_symlink(dir.path() / "victim", dir.path() / "5");
  writer.finish();
  CHECK(fs::is_empty(dir.path() / "victim"));
  CHECK(fs::exists(dir.path() / "moved" / "rank-0.img"));
  CHECK_FALSE(fs::exists(dir.path() / "moved" / "rank-0.img.tmp"));
  CHECK_NOTHROW(ImageReader(dir.file("moved/rank-0.img")));
}

TEST_CASE("an image is not written into a directory that is a symlink", "[image][writer]") {
  TempDir dir;
  fs::create_directories(dir.path() / "victim");
  fs::create_directory_symlink(dir.path() / "victim", dir.path() / "5");
  const std::string path = dir.file("5/rank-0.img");
  try {
    ImageWriter writer(path, sample_header());
    FAIL("created");
  } catch (const ImageError& e) {
    CHECK(e.kind() == ImageErrorKind::io);
    CHECK(std::string(e.what()) == path + ": its directory " + dir.file("5") + " is a symlink");
  }
  CHECK(fs::is_empty(dir.path() / "victim"));
}
