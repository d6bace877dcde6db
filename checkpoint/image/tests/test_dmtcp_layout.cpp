// Images yadokari writes in DMTCP's layout (docs/formats/dmtcp-image.md): they restore every area
// exactly, DMTCP's structures read back from them with the reader written from DMTCP's layout
// (the one `yadokari inspect` uses on DMTCP's own images), and damage anywhere is refused.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "checkpoint/image/dmtcp_image.hpp"
#include "checkpoint/image/dmtcp_layout.hpp"
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

// Where the DMTCP part's records are: both process headers, each area's record, the end-of-areas record.
std::vector<std::uint64_t> dmtcp_record_offsets(const std::vector<SampleArea>& areas) {
  std::vector<std::uint64_t> offsets{0, kDmtcpRecord};
  std::uint64_t at = 2 * kDmtcpRecord;
  for (const auto& area : memory_areas(areas)) {
    offsets.push_back(at);
    at += kDmtcpRecord + area.data.size();
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
  const auto areas = sample_areas();
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
  const auto areas = sample_areas();
  const std::string path = dir.file("rank-1.img");
  write_image(path, areas, dmtcp_options());

  const DmtcpImage dmtcp = read_dmtcp_image(path);
  CHECK(dmtcp.process.signature == "DMTCP_CHECKPOINT_IMAGE_v4.0");
  CHECK(dmtcp.process.program == "solver");
  CHECK(dmtcp.process.executable == "/opt/app/bin/solver");
  CHECK(dmtcp.process.peers == 4);
  CHECK(dmtcp.process.elf64);
  CHECK_FALSE(dmtcp.gzip);
  const auto memory = memory_areas(areas);
  REQUIRE(dmtcp.areas.size() == memory.size());
  const auto bytes = read_bytes(path);
  std::uint64_t at = 2 * kDmtcpRecord;
  for (std::size_t i = 0; i < memory.size(); ++i) {
    const DmtcpArea& area = dmtcp.areas[i];
    INFO("area " << memory[i].info.name);
    CHECK(area.start == memory[i].info.address);
    CHECK(area.size == memory[i].data.size());
    CHECK(area.end == area.start + area.size);
    CHECK(area.prot == static_cast<std::int32_t>(memory[i].info.protection));
    CHECK(area.flags == (dmtcp::kMapPrivate | dmtcp::kMapAnonymous));
    CHECK(area.properties == 0);
    CHECK(area.name == memory[i].info.name);
    CHECK(area.stored_bytes == area.size);
    // What a DMTCP reader reads after the record is the area's memory, byte for byte.
    at += kDmtcpRecord;
    const std::vector<std::byte> stored(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                                        bytes.begin() + static_cast<std::ptrdiff_t>(at + area.size));
    CHECK(stored == memory[i].data);
    at += area.size;
  }
  // DMTCP's readers stop at the end-of-areas record; yadokari's header follows it.
  CHECK(dmtcp.image_bytes == at + kDmtcpRecord);
  CHECK(std::string(reinterpret_cast<const char*>(bytes.data() + dmtcp.image_bytes), 8) == "YADOKARI");
}

TEST_CASE("every bit of DMTCP's records in an image in DMTCP's layout is checked", "[image][dmtcp-layout]") {
  TempDir dir;
  const auto areas = sample_areas();
  const std::string path = dir.file("rank-1.img");
  write_image(path, areas, dmtcp_options());
  // One bit in every byte of both process headers, every area record and the end-of-areas record.
  for (const std::uint64_t record : dmtcp_record_offsets(areas)) {
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
  const auto areas = sample_areas();  // memory areas: data, heap, stack, tls
  const std::string good = dir.file("good.img");
  write_image(good, areas, dmtcp_options());
  const auto records = dmtcp_record_offsets(areas);
  const std::string copy = dir.file("bad.img");

  struct Damage {
    std::string what;
    std::uint64_t offset;  // a bit flipped here, or (truncate) the file cut here
    bool truncate;
    std::string detail;
  };
  const std::uint64_t heap_data = records[3] + kDmtcpRecord;
  const std::vector<Damage> damages{
      {"second header copy", kDmtcpRecord + 300, false, "the two copies of the DMTCP process header differ"},
      {"an area's protection", records[2] + 32, false, "corrupt image: record #0 ('data') does not match DMTCP area 0"},
      {"the heap's bytes", heap_data + 5000, false, "checksum mismatch in area 'heap'"},
      {"end-of-areas padding", records.back() + 2000, false, "corrupt DMTCP end-of-areas record"},
      {"a DMTCP version", 26, false, "DMTCP image version 4.1 is not one this build reads (4.0)"},
      {"yadokari's magic", records.back() + kDmtcpRecord, false,
       "corrupt image: no yadokari header after the DMTCP part"},
      {"cut in the first header", 100, true, "truncated inside the DMTCP process header"},
      {"cut in the second header", kDmtcpRecord + 1, true,
       "truncated inside the second copy of the DMTCP process header"},
      {"cut in the heap", heap_data + 100, true, "truncated inside the data of DMTCP area 1 ('heap')"},
      {"cut before the end of areas", records.back(), true, "truncated after 4 DMTCP areas (no end-of-areas record)"},
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
      flip_bit(copy, damage.offset, 0);
    }
    CHECK(open_and_verify_error(copy).detail() == damage.detail);
  }
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
