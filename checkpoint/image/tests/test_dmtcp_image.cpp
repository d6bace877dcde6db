// Images in DMTCP's layout, built here byte by byte from docs/formats/dmtcp-image.md (not by DMTCP),
// read back by the reader `yadokari inspect` uses.
#include <catch2/catch.hpp>
#include <sys/mman.h>
#include <zlib.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "checkpoint/image/dmtcp_image.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"

namespace {

using yadokari::image::DmtcpImage;
using yadokari::image::ImageError;
using yadokari::image::is_dmtcp_image;
using yadokari::image::read_dmtcp_image;
using yadokari::image::testing::TempDir;

using Record = std::array<unsigned char, 4096>;

template <typename T>
void put(Record& record, std::size_t at, T value) {
  std::memcpy(record.data() + at, &value, sizeof value);
}
void put_text(Record& record, std::size_t at, const std::string& text) {
  std::memcpy(record.data() + at, text.data(), text.size());
}

Record process_header(const std::string& signature = "DMTCP_CHECKPOINT_IMAGE_v4.0\n") {
  Record header{};
  put_text(header, 0, signature);
  put<std::int32_t>(header, 104, 4242);       // pid
  put<std::int32_t>(header, 108, 17);         // ppid
  put<std::uint32_t>(header, 128, 4);         // peers
  put<std::uint32_t>(header, 132, 1);         // ELF64
  put_text(header, 256, "solver");            // program
  put_text(header, 1280, "/opt/app/solver");  // executable
  return header;
}

struct AreaSpec {
  std::uint64_t start, size;
  int prot, flags;
  std::uint64_t properties;
  std::int64_t file_size;
  std::string name;
};

Record area_record(const AreaSpec& spec) {
  Record record{};
  put<std::uint64_t>(record, 0, spec.start);
  put<std::uint64_t>(record, 8, spec.start + spec.size);
  put<std::uint64_t>(record, 16, spec.size);
  put<std::uint64_t>(record, 32, static_cast<std::uint64_t>(spec.prot));
  put<std::uint64_t>(record, 40, static_cast<std::uint64_t>(spec.flags));
  put<std::int64_t>(record, 72, spec.file_size);
  put<std::uint64_t>(record, 80, spec.properties);
  put_text(record, 88, spec.name);
  return record;
}

Record end_of_areas() {
  Record record{};
  put<std::uint64_t>(record, 16, ~std::uint64_t{0});
  return record;
}

void append(std::vector<unsigned char>& bytes, const Record& record) {
  bytes.insert(bytes.end(), record.begin(), record.end());
}
void append_data(std::vector<unsigned char>& bytes, std::uint64_t size, unsigned char fill) {
  bytes.insert(bytes.end(), size, fill);
}

// A program mapping (file bytes up to the file's end), an anonymous heap split into a data run and
// a zero run under its parent record, and a read-only file page; then the end record.
std::vector<unsigned char> sample_image() {
  std::vector<unsigned char> bytes;
  append(bytes, process_header());
  append(bytes, process_header());
  append(bytes, area_record({0x400000, 0x3000, PROT_READ | PROT_EXEC, MAP_PRIVATE, 0, 0x2100, "/opt/app/solver"}));
  append_data(bytes, 0x2100, 0xc3);
  append(bytes,
         area_record({0x600000, 0x4000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, 0x2, -1, "[heap]"}));
  append(bytes,
         area_record({0x600000, 0x1000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, 0x4, -1, "[heap]"}));
  append_data(bytes, 0x1000, 0x5a);
  append(bytes,
         area_record({0x601000, 0x3000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, 0x5, -1, "[heap]"}));
  append(bytes, area_record({0x7f0000000000, 0x1000, PROT_READ, MAP_SHARED, 0, 0x1000, "/etc/app.conf"}));
  append_data(bytes, 0x1000, 0x11);
  append(bytes, end_of_areas());
  return bytes;
}

void write_plain(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void write_gzip(const std::string& path, const std::vector<unsigned char>& bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  REQUIRE(file != nullptr);
  REQUIRE(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size()));
  REQUIRE(gzclose(file) == Z_OK);
}

std::string error_of(const std::string& path) {
  try {
    read_dmtcp_image(path);
  } catch (const ImageError& e) {
    return e.what();
  }
  return "no error";
}

void check_sample(const DmtcpImage& image, std::size_t total_bytes) {
  CHECK(image.process.signature == "DMTCP_CHECKPOINT_IMAGE_v4.0");
  CHECK(image.process.program == "solver");
  CHECK(image.process.executable == "/opt/app/solver");
  CHECK(image.process.pid == 4242);
  CHECK(image.process.ppid == 17);
  CHECK(image.process.peers == 4);
  CHECK(image.process.elf64);
  CHECK(image.image_bytes == total_bytes);
  REQUIRE(image.areas.size() == 5);
  CHECK(image.areas[0].stored_bytes == 0x2100);  // a file mapping: up to the file's end
  CHECK(image.areas[0].name == "/opt/app/solver");
  CHECK(image.areas[1].parent());
  CHECK(image.areas[1].stored_bytes == 0);
  CHECK(image.areas[2].child());
  CHECK_FALSE(image.areas[2].zero());
  CHECK(image.areas[2].stored_bytes == 0x1000);
  CHECK(image.areas[3].zero());
  CHECK(image.areas[3].stored_bytes == 0);
  CHECK(image.areas[4].start == 0x7f0000000000);
  CHECK(image.areas[4].end == 0x7f0000001000);
  CHECK(image.areas[4].prot == PROT_READ);
  CHECK(image.areas[4].flags == MAP_SHARED);
}

}  // namespace

TEST_CASE("an uncompressed DMTCP image is read area by area", "[image][dmtcp]") {
  TempDir dir;
  const auto bytes = sample_image();
  write_plain(dir.file("ckpt_solver.dmtcp"), bytes);
  REQUIRE(is_dmtcp_image(dir.file("ckpt_solver.dmtcp")));
  const DmtcpImage image = read_dmtcp_image(dir.file("ckpt_solver.dmtcp"));
  CHECK_FALSE(image.gzip);
  check_sample(image, bytes.size());
}

TEST_CASE("a gzip-compressed DMTCP image (DMTCP's default) reads the same", "[image][dmtcp]") {
  TempDir dir;
  const auto bytes = sample_image();
  write_gzip(dir.file("ckpt_solver.dmtcp"), bytes);
  REQUIRE(is_dmtcp_image(dir.file("ckpt_solver.dmtcp")));
  const DmtcpImage image = read_dmtcp_image(dir.file("ckpt_solver.dmtcp"));
  CHECK(image.gzip);
  check_sample(image, bytes.size());
}

TEST_CASE("a DMTCP image cut short or altered is refused with the reason", "[image][dmtcp]") {
  TempDir dir;
  auto bytes = sample_image();
  const std::string path = dir.file("ckpt.dmtcp");

  write_plain(path, std::vector<unsigned char>(bytes.begin(), bytes.begin() + 3 * 4096 + 100));
  CHECK(error_of(path) == path + ": ends inside the data of area 0 ('/opt/app/solver')");

  write_plain(path, std::vector<unsigned char>(bytes.begin(), bytes.end() - 4096));
  CHECK(error_of(path) == path + ": ends after 5 areas, without DMTCP's end-of-areas record");

  write_plain(path, std::vector<unsigned char>(bytes.begin(), bytes.begin() + 6000));
  CHECK(error_of(path) == path + ": ends inside the second copy of the DMTCP process header");

  auto altered = bytes;
  altered[4096 + 104] ^= 1;  // the second header's pid
  write_plain(path, altered);
  CHECK(error_of(path) == path + ": the two copies of the DMTCP process header differ");

  auto wrong_size = bytes;
  wrong_size[2 * 4096 + 16] ^= 0x10;  // the first area's size no longer matches its span
  write_plain(path, wrong_size);
  CHECK(error_of(path) == path + ": area 0 has size 12304 but spans 12288 bytes");
}

TEST_CASE("only DMTCP's signature makes a DMTCP image", "[image][dmtcp]") {
  TempDir dir;
  const std::string path = dir.file("other");
  write_plain(path, std::vector<unsigned char>(8192, 'x'));
  CHECK_FALSE(is_dmtcp_image(path));
  CHECK(error_of(path) == path + ": not a DMTCP checkpoint image");
  CHECK_FALSE(is_dmtcp_image(dir.file("missing")));

  std::vector<unsigned char> old;
  append(old, process_header("DMTCP_CHECKPOINT_IMAGE_v2.0\n"));
  write_plain(path, old);
  CHECK(is_dmtcp_image(path));
  CHECK(error_of(path) == path + ": DMTCP image version 2.0 is not one this build reads (4.0)");
}
