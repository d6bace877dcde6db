// Images yadokari writes in DMTCP's layout (docs/formats/dmtcp-image.md): they restore every area
// exactly, DMTCP's structures read back from them with the reader written from DMTCP's layout
// (the one `yadokari inspect` uses on DMTCP's own images), and damage anywhere is refused.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "checkpoint/image/dmtcp_image.hpp"
#include "checkpoint/image/dmtcp_layout.hpp"
#include "checkpoint/image/dmtcp_runs.hpp"
#include "checkpoint/image/file_hash.hpp"
#include "checkpoint/image/format.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/image/image_writer.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"

using namespace yadokari::image;
using namespace yadokari::image::testing;

namespace {

constexpr std::uint64_t kDmtcpRecord = dmtcp::kRecordSize;

WriterOptions dmtcp_options(int compression = 0) {
  WriterOptions options;
  options.compression_level = compression;
  options.layout = ImageLayout::dmtcp;
  return options;
}

std::vector<SampleArea> memory_areas(const std::vector<SampleArea>& areas) {
  std::vector<SampleArea> memory;
  for (const auto& area : areas)
    if (area.info.address != 0) memory.push_back(area);
  return memory;
}

// The sample areas and an arena with long zero stretches: data in pages 0-1, zero in 2-6, data in
// 7, zero in 8-9 (too short to be a run of its own), data in 10-12, zero from 13 to the short
// page 20. The sample's stack is zero throughout; its data, heap and tls have no zero stretch of
// three pages.
std::vector<SampleArea> dmtcp_sample_areas() {
  auto areas = sample_areas();
  areas.push_back({{AreaKind::heap_arena, "arena", 0x7f1000000000, kProtRead | kProtWrite},
                   pattern(20, 100, {2, 3, 4, 5, 6, 8, 9, 13, 14, 15, 16, 17, 18, 19, 20}, 7)});
  return areas;
}

// Where the DMTCP part's records are: both process headers, every area and run record, the
// end-of-areas record; read with the reader written from DMTCP's layout.
std::vector<std::uint64_t> dmtcp_record_offsets(const std::string& path) {
  std::vector<std::uint64_t> offsets{0, kDmtcpRecord};
  std::uint64_t at = 2 * kDmtcpRecord;
  for (const auto& area : read_dmtcp_image(path).areas) {
    offsets.push_back(at);
    at += kDmtcpRecord + area.stored_bytes;
  }
  offsets.push_back(at);
  return offsets;
}

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

// One bit flipped in place (the shared flip_bit rewrites the whole file: too slow for 28,672 flips).
void flip_in_place(const std::string& path, std::uint64_t offset, unsigned bit) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(fd >= 0);
  unsigned char byte = 0;
  REQUIRE(::pread(fd, &byte, 1, static_cast<off_t>(offset)) == 1);
  byte ^= static_cast<unsigned char>(1u << bit);
  REQUIRE(::pwrite(fd, &byte, 1, static_cast<off_t>(offset)) == 1);
  ::close(fd);
}

void truncate_copy(const std::string& from, const std::string& to, std::uint64_t size) {
  auto bytes = read_bytes(from);
  bytes.resize(size);
  write_bytes(to, bytes);
}

}  // namespace

TEST_CASE("an image in DMTCP's layout restores every area exactly", "[image][dmtcp-layout]") {
  const int compression = GENERATE(0, 3);
  INFO("zstd level for yadokari's records: " << compression);
  TempDir dir;
  const auto areas = dmtcp_sample_areas();
  const std::string path = dir.file("rank-1.img");
  const WrittenImage written = write_image(path, areas, dmtcp_options(compression));
  CHECK(written.layout == ImageLayout::dmtcp);
  CHECK(written.areas == areas.size());
  CHECK(written.size == std::filesystem::file_size(path));
  CHECK(written.xxh64 == xxh64_of_file(path));
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));

  const ImageReader reader(path);
  CHECK(reader.layout() == ImageLayout::dmtcp);
  CHECK(reader.header() == sample_header());
  REQUIRE(reader.areas().size() == areas.size());
  for (std::size_t i = 0; i < areas.size(); ++i) {
    const AreaRecord& record = reader.areas()[i];
    INFO("area " << areas[i].info.name);
    CHECK(record.name == areas[i].info.name);
    CHECK(record.kind == areas[i].info.kind);
    CHECK(record.address == areas[i].info.address);
    CHECK(record.protection == areas[i].info.protection);
    CHECK(record.in_dmtcp_part() == (areas[i].info.address != 0));
    CHECK(reader.read_area(i) == areas[i].data);
  }
  CHECK_NOTHROW(reader.verify());
}

TEST_CASE("DMTCP's reader lists the memory areas of an image in DMTCP's layout, with their bytes",
          "[image][dmtcp-layout]") {
  TempDir dir;
  const auto areas = dmtcp_sample_areas();
  const std::string path = dir.file("rank-1.img");
  write_image(path, areas, dmtcp_options());

  const DmtcpImage dmtcp = read_dmtcp_image(path);
  CHECK(dmtcp.process.signature == "DMTCP_CHECKPOINT_IMAGE_v4.0");
  CHECK(dmtcp.process.program == "solver");
  CHECK(dmtcp.process.executable == "/opt/app/bin/solver");
  CHECK(dmtcp.process.peers == 4);
  CHECK(dmtcp.process.elf64);
  CHECK_FALSE(dmtcp.gzip);

  // The records DMTCP would write for these areas: (area, offset into it, size, properties).
  struct Expected {
    std::size_t area;
    std::uint64_t offset, size, properties;
  };
  constexpr std::uint64_t parent = dmtcp::kParent, data_run = dmtcp::kChild,
                          zero_run = dmtcp::kChild | dmtcp::kZeroPages;
  const auto memory = memory_areas(areas);  // data, heap, stack, tls, arena
  const std::vector<Expected> expected{
      {0, 0, 6 * 4096, 0},
      {1, 0, 9 * 4096 + 100, 0},
      {2, 0, 3 * 4096, parent},
      {2, 0, 3 * 4096, zero_run},
      {3, 0, 700, 0},
      {4, 0, 20 * 4096 + 100, parent},
      {4, 0, 2 * 4096, data_run},
      {4, 2 * 4096, 5 * 4096, zero_run},
      {4, 7 * 4096, 6 * 4096, data_run},
      {4, 13 * 4096, 7 * 4096 + 100, zero_run},
  };
  REQUIRE(dmtcp.areas.size() == expected.size());
  const auto bytes = read_bytes(path);
  std::uint64_t at = 2 * kDmtcpRecord;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const DmtcpArea& area = dmtcp.areas[i];
    const SampleArea& sample = memory[expected[i].area];
    INFO("record " << i << ", area " << sample.info.name);
    CHECK(area.start == sample.info.address + expected[i].offset);
    CHECK(area.size == expected[i].size);
    CHECK(area.end == area.start + area.size);
    CHECK(area.prot == static_cast<std::int32_t>(sample.info.protection));
    CHECK(area.flags == (dmtcp::kMapPrivate | dmtcp::kMapAnonymous));
    CHECK(area.properties == expected[i].properties);
    CHECK(area.name == sample.info.name);
    const bool has_data = expected[i].properties == 0 || expected[i].properties == data_run;
    CHECK(area.stored_bytes == (has_data ? area.size : 0));
    // What a DMTCP reader reads after the record is the area's memory there, byte for byte; a zero
    // run stands for zeros.
    at += kDmtcpRecord;
    const auto from = sample.data.begin() + static_cast<std::ptrdiff_t>(expected[i].offset);
    const std::vector<std::byte> memory_there(from, from + static_cast<std::ptrdiff_t>(area.size));
    if (has_data) {
      const std::vector<std::byte> stored(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                                          bytes.begin() + static_cast<std::ptrdiff_t>(at + area.size));
      CHECK(stored == memory_there);
    } else if (expected[i].properties == zero_run) {
      CHECK(memory_there == std::vector<std::byte>(area.size));
    }
    at += area.stored_bytes;
  }
  // DMTCP's readers stop at the end-of-areas record; yadokari's header follows it.
  CHECK(dmtcp.image_bytes == at + kDmtcpRecord);
  CHECK(std::string(reinterpret_cast<const char*>(bytes.data() + dmtcp.image_bytes), 8) == "YADOKARI");
}

TEST_CASE("yadokari's reader shows what the DMTCP part stores of each area", "[image][dmtcp-layout]") {
  TempDir dir;
  const std::string path = dir.file("rank-1.img");
  write_image(path, dmtcp_sample_areas(), dmtcp_options());
  const ImageReader reader(path);
  const AreaRecord* stack = reader.find("stack");
  const AreaRecord* arena = reader.find("arena");
  const AreaRecord* heap = reader.find("heap");
  REQUIRE((stack && arena && heap));
  CHECK(stack->stored_length == 0);
  CHECK(stack->zero_pages == 3);
  CHECK(arena->stored_length == 8 * 4096);
  CHECK(arena->zero_pages == 5 + 8);  // the short last page counts as one
  CHECK(heap->stored_length == heap->length);
  CHECK(heap->zero_pages == 0);
}

TEST_CASE("only zero stretches of three pages or more become DMTCP zero runs", "[image][dmtcp-layout]") {
  const auto page = [](std::uint64_t n) { return n * 4096; };
  // No zero stretch long enough: one record, all the bytes.
  CHECK(dmtcp_runs(pattern(6, 0, {1, 2, 5}, 1).data(), page(6)).empty());
  CHECK(dmtcp_runs(pattern(0, 700, {}, 1).data(), 700).empty());
  CHECK(dmtcp_runs(nullptr, 0).empty());
  // Two zero pages and a short last one are three pages.
  CHECK(dmtcp_runs(pattern(4, 10, {2, 3, 4}, 1).data(), page(4) + 10) ==
        std::vector<DmtcpRun>{{0, page(2), false}, {page(2), page(2) + 10, true}});
  CHECK(dmtcp_runs(pattern(3, 0, {0, 1, 2}, 1).data(), page(3)) == std::vector<DmtcpRun>{{0, page(3), true}});
  CHECK(dmtcp_runs(pattern(7, 0, {0, 1, 2, 4, 5}, 1).data(), page(7)) ==
        std::vector<DmtcpRun>{{0, page(3), true}, {page(3), page(4), false}});
}

TEST_CASE("every bit of DMTCP's records in an image in DMTCP's layout is checked", "[image][dmtcp-layout]") {
  TempDir dir;
  const std::string path = dir.file("rank-1.img");
  write_image(path, dmtcp_sample_areas(), dmtcp_options());
  // One bit in every byte of both process headers, every area and run record and the end-of-areas record.
  for (const std::uint64_t record : dmtcp_record_offsets(path)) {
    for (std::uint64_t byte = 0; byte < kDmtcpRecord; ++byte) {
      const unsigned bit = static_cast<unsigned>(byte % 8);
      flip_in_place(path, record + byte, bit);
      bool refused = false;
      try {
        const ImageReader reader(path);
      } catch (const ImageError&) {
        refused = true;
      }
      flip_in_place(path, record + byte, bit);
      if (!refused) FAIL("a flipped bit at offset " << record + byte << " was not noticed");
    }
  }
  CHECK_NOTHROW(ImageReader(path).verify());
}

TEST_CASE("damage in an image in DMTCP's layout is refused with one line saying what", "[image][dmtcp-layout]") {
  TempDir dir;
  const std::string good = dir.file("good.img");
  write_image(good, dmtcp_sample_areas(), dmtcp_options());
  // The records: both headers, data, heap, the stack's parent and zero run, tls, the arena's parent
  // and its four runs, the end of areas.
  const auto records = dmtcp_record_offsets(good);
  REQUIRE(records.size() == 13);
  const std::uint64_t heap_data = records[3] + kDmtcpRecord;
  const std::uint64_t arena_data = records[10] + kDmtcpRecord;  // its second data run
  const std::string copy = dir.file("bad.img");

  struct Damage {
    std::string what;
    std::uint64_t offset;  // a bit flipped here (bit `bit`), or (truncate) the file cut here
    bool truncate;
    std::string detail;
    unsigned bit = 0;
  };
  const std::vector<Damage> damages{
      {"second header copy", kDmtcpRecord + 300, false, "the two copies of the DMTCP process header differ"},
      {"an area's protection", records[2] + 32, false, "corrupt image: record #0 ('data') does not match DMTCP area 0"},
      {"a run's protection", records[10] + 32, false, "corrupt image: record #6 ('arena') does not match DMTCP area 4"},
      {"the heap's bytes", heap_data + 5000, false, "checksum mismatch in area 'heap'"},
      {"an arena run's bytes", arena_data + 5000, false, "checksum mismatch in area 'arena'"},
      {"a run made a mapping", records[5] + 80, false, "DMTCP area 2 ('stack'): its runs cover 0 of its 12288 bytes",
       2},
      {"a mapping made a run", records[6] + 80, false,
       "the DMTCP run record at offset " + std::to_string(records[6]) + " belongs to no parent record", 2},
      {"end-of-areas padding", records.back() + 2000, false, "corrupt DMTCP end-of-areas record"},
      {"a DMTCP version", 26, false, "DMTCP image version 4.1 is not one this build reads (4.0)"},
      {"yadokari's magic", records.back() + kDmtcpRecord, false,
       "corrupt image: no yadokari header after the DMTCP part"},
      {"cut in the first header", 100, true, "truncated inside the DMTCP process header"},
      {"cut in the second header", kDmtcpRecord + 1, true,
       "truncated inside the second copy of the DMTCP process header"},
      {"cut in the heap", heap_data + 100, true, "truncated inside the data of DMTCP area 1 ('heap')"},
      {"cut in an arena run", arena_data + 100, true, "truncated inside the data of DMTCP area 4 ('arena')"},
      {"cut before the end of areas", records.back(), true, "truncated after 5 DMTCP areas (no end-of-areas record)"},
      {"cut after the end of areas", records.back() + kDmtcpRecord, true,
       "a DMTCP image without yadokari's records (yadokari restores only images it wrote)"},
      {"cut in yadokari's header", records.back() + kDmtcpRecord + 30, true, "truncated inside the header"},
  };
  for (const auto& damage : damages) {
    INFO(damage.what);
    if (damage.truncate) {
      truncate_copy(good, copy, damage.offset);
    } else {
      std::filesystem::copy_file(good, copy, std::filesystem::copy_options::overwrite_existing);
      flip_bit(copy, damage.offset, damage.bit);
    }
    CHECK(open_and_verify_error(copy).detail() == damage.detail);
  }

  // A run moved, start and end alike (no single bit does that: the size would not match the span).
  std::filesystem::copy_file(good, copy, std::filesystem::copy_options::overwrite_existing);
  auto bytes = read_bytes(copy);
  for (const std::uint64_t field : {records[9], records[9] + 8}) {
    std::uint64_t value = 0;
    std::memcpy(&value, bytes.data() + field, sizeof value);
    value += 4096;
    std::memcpy(bytes.data() + field, &value, sizeof value);
  }
  write_bytes(copy, bytes);
  CHECK(open_and_verify_error(copy).detail() == "DMTCP area 4 ('arena'): run 1 does not continue its runs");
}

TEST_CASE("an image in DMTCP's layout is a full image", "[image][dmtcp-layout]") {
  TempDir dir;
  ImageHeader header = sample_header();
  header.parent = ParentImage{2, 0x1234};
  try {
    ImageWriter writer(dir.file("rank-1.img"), header, dmtcp_options());
    FAIL("an increment was accepted in DMTCP's layout");
  } catch (const ImageError& e) {
    CHECK(e.kind() == ImageErrorKind::usage);
    CHECK(e.detail() == "an increment cannot be written in DMTCP's layout");
  }
  CHECK_FALSE(std::filesystem::exists(dir.file("rank-1.img.tmp")));
}
