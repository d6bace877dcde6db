// Images read back exactly what was written, with and without compression and zero-page elision.
#include <catch2/catch.hpp>

#include <filesystem>

#include "checkpoint/image/file_hash.hpp"
#include "checkpoint/image/format.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/image/image_writer.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"

using namespace yadokari::image;
using namespace yadokari::image::testing;

namespace {

struct Mode {
  const char* name;
  WriterOptions options;
};

std::uint64_t zero_pages_in(const std::vector<std::byte>& data) {
  std::uint64_t zero = 0;
  for (std::size_t at = 0; at < data.size(); at += 4096) {
    const std::size_t end = std::min(data.size(), at + 4096);
    if (std::all_of(data.begin() + at, data.begin() + end, [](std::byte b) { return b == std::byte{0}; })) ++zero;
  }
  return zero;
}

}  // namespace

TEST_CASE("an image round-trips header and every area", "[image]") {
  const Mode mode = GENERATE(Mode{"raw, zero pages elided", {0, true}}, Mode{"zstd 3, zero pages elided", {3, true}},
                             Mode{"raw, every page stored", {0, false}}, Mode{"zstd 1, every page stored", {1, false}},
                             Mode{"zstd -5 (fast), elided", {-5, true}});
  INFO(mode.name);
  TempDir dir;
  const auto areas = sample_areas();
  const std::string path = dir.file("rank-1.img");
  const WrittenImage written = write_image(path, areas, mode.options);

  CHECK(written.path == path);
  CHECK(written.areas == areas.size());
  CHECK(written.size == std::filesystem::file_size(path));
  CHECK(written.xxh64 == xxh64_of_file(path));
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));

  const ImageReader reader(path);
  CHECK(reader.header() == sample_header());
  CHECK(reader.header().version == kFullImageVersion);
  REQUIRE(reader.areas().size() == areas.size());
  for (std::size_t i = 0; i < areas.size(); ++i) {
    const AreaRecord& record = reader.areas()[i];
    const SampleArea& area = areas[i];
    INFO("area " << area.info.name);
    CHECK(record.index == i);
    CHECK(record.name == area.info.name);
    CHECK(record.kind == area.info.kind);
    CHECK(record.address == area.info.address);
    CHECK(record.protection == area.info.protection);
    CHECK(record.length == area.data.size());
    const std::uint64_t zero = mode.options.elide_zero_pages ? zero_pages_in(area.data) : 0;
    CHECK(record.zero_pages == zero);
    CHECK(record.zero_pages_elided() == (zero != 0));
    // Random registers do not compress, and are then stored raw.
    const bool compressible = area.info.name != "registers";
    CHECK(record.compressed() == (mode.options.compression_level != 0 && zero < record.pages() && compressible));
    CHECK(reader.read_area(i) == area.data);
  }
  CHECK_NOTHROW(reader.verify());
}

TEST_CASE("zero pages and compression make images smaller", "[image]") {
  TempDir dir;
  const auto sparse = pattern(64, 0, {0, 1, 2, 3, 10, 11, 12, 13, 14, 15, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49}, 7);
  const std::vector<SampleArea> areas{{{AreaKind::heap_arena, "heap", 0x10000, kProtRead | kProtWrite}, sparse}};
  const auto raw = write_image(dir.file("raw.img"), areas, {0, false});
  const auto elided = write_image(dir.file("elided.img"), areas, {0, true});
  const auto compressed = write_image(dir.file("zstd.img"), areas, {3, true});
  CHECK(raw.size > sparse.size());
  CHECK(elided.size < raw.size - 20 * 4096 + 1024);
  CHECK(compressed.size < elided.size * 3 / 4);  // a quarter of the pattern bytes are random
  const ImageReader reader(dir.file("elided.img"));
  CHECK(reader.areas()[0].zero_pages == 20);
  CHECK(reader.areas()[0].stored_length == 8 + 3 * format::kRunSize + 44 * 4096);
}

TEST_CASE("an area is read straight into the caller's memory", "[image]") {
  TempDir dir;
  const auto data = pattern(8, 0, {2, 3}, 11);
  write_image(dir.file("a.img"), {{{AreaKind::heap_arena, "heap", 0x20000, kProtRead | kProtWrite}, data}}, {3, true});
  const ImageReader reader(dir.file("a.img"));

  SECTION("zero pages are filled") {
    std::vector<std::byte> memory(data.size(), std::byte{0xcc});
    reader.read_area(0, memory);
    CHECK(memory == data);
  }
  SECTION("zero_fill=false leaves memory known to be zero alone") {
    std::vector<std::byte> memory(data.size(), std::byte{0xcc});
    reader.read_area(0, memory, false);
    CHECK(memory[2 * 4096] == std::byte{0xcc});
    CHECK(memory[4 * 4096] == data[4 * 4096]);
  }
  SECTION("a buffer of the wrong size is refused") {
    std::vector<std::byte> memory(data.size() - 1);
    CHECK_THROWS_MATCHES(
        reader.read_area(0, memory), ImageError,
        Catch::Matchers::Predicate<ImageError>([](const ImageError& e) { return e.kind() == ImageErrorKind::usage; }));
  }
}

TEST_CASE("a large compressed area streams through in chunks", "[image]") {
  TempDir dir;
  const auto data = pattern(1024 + 300, 17, {5, 600, 601, 1200}, 5);  // > 5 MiB: several zstd and scratch chunks
  write_image(dir.file("big.img"), {{{AreaKind::heap_arena, "heap", 0x40000000, kProtRead | kProtWrite}, data}},
              {1, true});
  const ImageReader reader(dir.file("big.img"));
  CHECK_NOTHROW(reader.verify());
  CHECK(reader.read_area(0) == data);
}

TEST_CASE("an image without areas is valid", "[image]") {
  TempDir dir;
  write_image(dir.file("empty.img"), {});
  const ImageReader reader(dir.file("empty.img"));
  CHECK(reader.areas().empty());
  CHECK_NOTHROW(reader.verify());
}

TEST_CASE("find returns the first area with a name", "[image]") {
  TempDir dir;
  write_image(dir.file("a.img"), sample_areas());
  const ImageReader reader(dir.file("a.img"));
  REQUIRE(reader.find("heap") != nullptr);
  CHECK(reader.find("heap")->index == 1);
  CHECK(reader.find("nothing") == nullptr);
}
