// Damaged images are refused with the right, specific error: bad magic, unsupported version,
// truncation (saying where), and a checksum mismatch for any single flipped bit.
#include <xxhash.h>
#include <catch2/catch.hpp>

#include <filesystem>

#include "checkpoint/image/byte_codec.hpp"
#include "checkpoint/image/format.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"

using namespace yadokari::image;
using namespace yadokari::image::testing;

namespace {

// Opens and verifies `path`; returns the error it raised (kind, detail) or fails the test.
ImageError open_and_verify_error(const std::string& path) {
  try {
    const ImageReader reader(path);
    reader.verify();
  } catch (const ImageError& e) {
    return e;
  }
  FAIL("no error for " << path);
  throw std::logic_error("unreachable");
}

std::string kind_name(ImageErrorKind kind) {
  switch (kind) {
    case ImageErrorKind::not_an_image:
      return "not_an_image";
    case ImageErrorKind::unsupported_version:
      return "unsupported_version";
    case ImageErrorKind::truncated:
      return "truncated";
    case ImageErrorKind::checksum_mismatch:
      return "checksum_mismatch";
    case ImageErrorKind::corrupt:
      return "corrupt";
    case ImageErrorKind::io:
      return "io";
    case ImageErrorKind::usage:
      return "usage";
  }
  return "?";
}

struct Layout {
  std::uint64_t header_length;
  std::vector<AreaRecord> areas;
  std::uint64_t end_record;
  std::uint64_t size;
};

Layout layout_of(const std::string& path) {
  const ImageReader reader(path);
  return {reader.areas().front().record_offset, reader.areas(), reader.file_size() - format::kRecordSize,
          reader.file_size()};
}

void truncate_copy(const std::string& from, const std::string& to, std::uint64_t size) {
  auto bytes = read_bytes(from);
  bytes.resize(size);
  write_bytes(to, bytes);
}

}  // namespace

TEST_CASE("a file that is not an image has bad magic", "[image][damaged]") {
  TempDir dir;
  const std::string path = dir.file("notes.txt");
  write_bytes(path, {std::byte{'h'}, std::byte{'e'}, std::byte{'l'}, std::byte{'l'}, std::byte{'o'}});
  const auto error = open_and_verify_error(path);
  CHECK(error.kind() == ImageErrorKind::not_an_image);
  CHECK(std::string(error.what()) == path + ": not a yadokari image (bad magic)");

  write_image(dir.file("a.img"), sample_areas());
  flip_bit(dir.file("a.img"), 3, 0);
  CHECK(open_and_verify_error(dir.file("a.img")).detail() == "not a yadokari image (bad magic)");
}

TEST_CASE("an image of another format version is refused as such", "[image][damaged]") {
  TempDir dir;
  const std::string path = dir.file("v3.img");
  write_image(path, sample_areas());
  // What a future writer would produce: version 3 with a valid prefix checksum.
  auto bytes = read_bytes(path);
  codec::store(bytes.data() + format::kVersionOffset, std::uint32_t{3});
  codec::store(bytes.data() + format::kPrefixChecksumOffset,
               static_cast<std::uint64_t>(XXH64(bytes.data(), format::kPrefixChecksumOffset, 0)));
  write_bytes(path, bytes);
  const auto error = open_and_verify_error(path);
  CHECK(error.kind() == ImageErrorKind::unsupported_version);
  CHECK(error.detail() == "unsupported image format version 3 (this yadokari reads versions 1 and 2)");
}

TEST_CASE("a truncated image says where it ends", "[image][damaged]") {
  TempDir dir;
  const std::string good = dir.file("good.img");
  write_image(good, sample_areas(), {3, true});
  const Layout layout = layout_of(good);
  const AreaRecord& data = layout.areas[0];
  const AreaRecord& heap = layout.areas[1];
  const AreaRecord& last = layout.areas.back();
  const std::string copy = dir.file("cut.img");

  struct Cut {
    std::uint64_t size;
    std::string detail;
  };
  const std::vector<Cut> cuts{
      {0, "truncated inside the header"},
      {5, "truncated inside the header"},
      {8, "truncated inside the header"},
      {23, "truncated inside the header"},
      {layout.header_length - 1, "truncated inside the header"},
      {layout.header_length, "truncated after the header (no end record)"},
      {layout.header_length + 1, "truncated inside record #0"},
      {data.data_offset - 1, "truncated inside record #0"},
      {data.data_offset, "truncated inside the data of area 'data' (#0)"},
      {heap.data_offset + heap.stored_length / 2, "truncated inside the data of area 'heap' (#1)"},
      {heap.data_offset + heap.stored_length, "truncated after area 'heap' (#1) (no end record)"},
      {layout.end_record,
       "truncated after area '" + last.name + "' (#" + std::to_string(last.index) + ") (no end record)"},
      {layout.end_record + 64, "truncated inside record #" + std::to_string(layout.areas.size())},
      {layout.size - 1, "truncated inside record #" + std::to_string(layout.areas.size())},
  };
  for (const auto& cut : cuts) {
    INFO("cut at " << cut.size << " of " << layout.size);
    truncate_copy(good, copy, cut.size);
    const auto error = open_and_verify_error(copy);
    CHECK(kind_name(error.kind()) == "truncated");
    CHECK(error.detail() == cut.detail);
  }
}

TEST_CASE("every single bit flip in the header or a record is a checksum mismatch", "[image][damaged]") {
  TempDir dir;
  const std::string good = dir.file("good.img");
  write_image(good, sample_areas());
  const Layout layout = layout_of(good);
  const std::string copy = dir.file("flipped.img");
  const auto original = read_bytes(good);

  auto check_flip = [&](std::uint64_t offset, unsigned bit, const std::string& detail) {
    auto bytes = original;
    bytes[offset] ^= static_cast<std::byte>(1u << bit);
    write_bytes(copy, bytes);
    const auto error = open_and_verify_error(copy);
    INFO("bit " << bit << " of byte " << offset);
    CHECK(kind_name(error.kind()) == "checksum_mismatch");
    CHECK(error.detail() == detail);
  };
  // Magic bytes are "bad magic" (above); from the version on, every byte is covered by a checksum.
  for (std::uint64_t offset = format::kVersionOffset; offset < layout.header_length; ++offset)
    check_flip(offset, offset % 8, "checksum mismatch in the header");
  for (const auto& area : layout.areas)
    for (std::uint64_t i = 0; i < format::kRecordSize; ++i)
      check_flip(area.record_offset + i, (i * 3) % 8, "checksum mismatch in record #" + std::to_string(area.index));
  for (std::uint64_t i = 0; i < format::kRecordSize; ++i)
    check_flip(layout.end_record + i, (i * 5) % 8,
               "checksum mismatch in record #" + std::to_string(layout.areas.size()));
}

TEST_CASE("a bit flip in an area's data names the area", "[image][damaged]") {
  const int level = GENERATE(0, 3);
  INFO("compression level " << level);
  TempDir dir;
  const std::string good = dir.file("good.img");
  write_image(good, sample_areas(), {level, true});
  const Layout layout = layout_of(good);
  const std::string copy = dir.file("flipped.img");
  const auto original = read_bytes(good);

  for (const auto& area : layout.areas) {
    if (area.stored_length == 0) continue;
    // The run list (elided areas), the first and last payload bytes and some in between.
    for (const std::uint64_t at :
         {std::uint64_t{0}, std::uint64_t{9}, area.stored_length / 3, area.stored_length / 2, area.stored_length - 1}) {
      if (at >= area.stored_length) continue;
      auto bytes = original;
      bytes[area.data_offset + at] ^= std::byte{0x10};
      write_bytes(copy, bytes);
      INFO("area " << area.name << ", data byte " << at);
      const ImageReader reader(copy);  // records are intact: opening works
      try {
        reader.verify();
        FAIL("verify passed");
      } catch (const ImageError& e) {
        CHECK(kind_name(e.kind()) == "checksum_mismatch");
        CHECK(std::string(e.what()) == copy + ": checksum mismatch in area '" + area.name + "'");
      }
      CHECK_THROWS_AS(reader.read_area(area.index), ImageError);
    }
  }
}

TEST_CASE("a bit flip in a large, stream-compressed area names the area", "[image][damaged]") {
  TempDir dir;
  const std::string good = dir.file("good.img");
  write_image(
      good,
      {{{AreaKind::heap_arena, "big heap", 0x40000000, kProtRead | kProtWrite}, pattern(200, 0, {3, 4, 100}, 21)}},
      {3, true});
  const auto area = layout_of(good).areas[0];
  REQUIRE(area.compressed());
  REQUIRE(area.stored_length > 64 * 1024);
  for (const std::uint64_t at : {area.stored_length / 4, area.stored_length / 2, area.stored_length - 2}) {
    INFO("data byte " << at);
    flip_bit(good, area.data_offset + at, 6);
    const ImageReader reader(good);
    CHECK_THROWS_WITH(reader.verify(), good + ": checksum mismatch in area 'big heap'");
    flip_bit(good, area.data_offset + at, 6);
    CHECK_NOTHROW(ImageReader(good).verify());
  }
}

TEST_CASE("bytes after the end record are refused", "[image][damaged]") {
  TempDir dir;
  const std::string path = dir.file("long.img");
  write_image(path, sample_areas());
  auto bytes = read_bytes(path);
  bytes.push_back(std::byte{0});
  write_bytes(path, bytes);
  const auto error = open_and_verify_error(path);
  CHECK(kind_name(error.kind()) == "corrupt");
  CHECK(error.detail() == "corrupt image: 1 bytes after the end record");
}

TEST_CASE("an end record from another image is refused", "[image][damaged]") {
  TempDir dir;
  write_image(dir.file("a.img"), sample_areas(), {}, sample_header(1, 3));
  write_image(dir.file("b.img"), sample_areas(), {}, sample_header(1, 4));
  auto a = read_bytes(dir.file("a.img"));
  const auto b = read_bytes(dir.file("b.img"));
  std::copy(b.end() - format::kRecordSize, b.end(), a.end() - format::kRecordSize);
  write_bytes(dir.file("spliced.img"), a);
  const auto error = open_and_verify_error(dir.file("spliced.img"));
  CHECK(kind_name(error.kind()) == "checksum_mismatch");
  CHECK(error.detail() == "checksum mismatch in the end record (it belongs to another header)");
}

TEST_CASE("a missing image is an I/O error with the system's reason", "[image][damaged]") {
  TempDir dir;
  const auto error = open_and_verify_error(dir.file("absent.img"));
  CHECK(kind_name(error.kind()) == "io");
  CHECK(error.detail() == "cannot open: No such file or directory");
}
