#include "checkpoint/image/tests/image_test_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>

namespace yadokari::image::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/yadokari-test-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

ImageHeader sample_header(std::uint32_t rank, std::uint64_t epoch) {
  ImageHeader header;
  header.job_id = "yk-test";
  header.rank = rank;
  header.world_size = 4;
  header.epoch = epoch;
  header.flavour = "openmpi";
  header.created_unix_ns = 1'700'000'000'123'456'789;
  header.binaries = {
      {"/opt/app/bin/solver", IdentityKind::build_id, std::string("\x3f\x2a\x00\x11\xfe\xed\xbe\xef", 8), 123456},
      {"/usr/lib/libmpi.so.40", IdentityKind::content_xxh64, std::string("\x01\x23\x45\x67\x89\xab\xcd\xef", 8),
       987654},
  };
  return header;
}

std::vector<std::byte> pattern(std::size_t pages, std::size_t tail, const std::vector<std::size_t>& zero_pages,
                               unsigned seed) {
  std::vector<std::byte> data(pages * 4096 + tail);
  std::mt19937 random(seed);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<std::byte>((i % 251) ^ (random() % 4 == 0 ? random() & 0xff : 0x5a));
  for (const std::size_t page : zero_pages)
    std::fill(data.begin() + page * 4096, data.begin() + std::min(data.size(), (page + 1) * 4096), std::byte{0});
  return data;
}

std::vector<std::byte> random_bytes(std::size_t size, unsigned seed) {
  std::vector<std::byte> data(size);
  std::mt19937 random(seed);
  for (auto& byte : data) byte = static_cast<std::byte>(random() & 0xff);
  return data;
}

std::vector<SampleArea> sample_areas() {
  std::vector<SampleArea> areas;
  areas.push_back({{AreaKind::data_bss, "data", 0x555555558000, kProtRead | kProtWrite}, pattern(6, 0, {1, 2, 5}, 1)});
  areas.push_back({{AreaKind::heap_arena, "heap", 0x7f0000000000, kProtRead | kProtWrite}, pattern(9, 100, {0, 4}, 2)});
  areas.push_back(
      {{AreaKind::stack, "stack", 0x7ff000000000, kProtRead | kProtWrite}, std::vector<std::byte>(3 * 4096)});
  areas.push_back({{AreaKind::registers, "registers", 0, kProtRead}, random_bytes(232, 3)});
  areas.push_back({{AreaKind::drained_messages, "drained", 0, kProtRead}, {}});
  areas.push_back({{AreaKind::tls, "tls", 0x7ffff7d8a740, kProtRead | kProtWrite | kProtExec}, pattern(0, 700, {}, 4)});
  return areas;
}

WrittenImage write_image(const std::string& path, const std::vector<SampleArea>& areas, WriterOptions options,
                         const ImageHeader& header) {
  ImageWriter writer(path, header, options);
  for (const auto& area : areas) writer.add_area(area.info, area.data);
  return writer.finish();
}

std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

void write_bytes(const std::string& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

void flip_bit(const std::string& path, std::uint64_t offset, unsigned bit) {
  auto bytes = read_bytes(path);
  bytes.at(offset) ^= static_cast<std::byte>(1u << bit);
  write_bytes(path, bytes);
}

}  // namespace yadokari::image::testing
