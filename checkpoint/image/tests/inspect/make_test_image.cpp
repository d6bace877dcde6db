// Writes the images the `yadokari inspect` tests look at, into DIR:
//   good.img       deterministic, uncompressed (its listing is compared with expected_inspect.txt)
//   zstd.img       the same areas, compressed
//   corrupt.img    good.img with one bit flipped inside the data of area 'heap'
//   truncated.img  good.img cut off inside the data of area 'heap'
//   escapes.img    an area whose name (a mapped file's path) holds an escape sequence and a newline
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "image/image_reader.hpp"
#include "image/image_writer.hpp"

using namespace yadokari::image;

namespace {

std::vector<std::byte> pages(std::size_t count, std::size_t tail, std::vector<std::size_t> zero, unsigned seed) {
  std::vector<std::byte> data(count * 4096 + tail);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>((i * 131 + seed * 7 + i / 97) & 0xff);
  for (const auto page : zero)
    for (std::size_t i = page * 4096; i < std::min(data.size(), (page + 1) * 4096); ++i) data[i] = std::byte{0};
  return data;
}

void write(const std::string& path, int compression_level) {
  ImageHeader header;
  header.job_id = "yk-inspect-test";
  header.rank = 2;
  header.world_size = 4;
  header.epoch = 7;
  header.flavour = "mpich";
  header.created_unix_ns = 1'700'000'000'000'000'000;
  header.binaries = {
      {"/opt/app/bin/solver", IdentityKind::build_id,
       std::string("\x3f\x2a\x00\x11\xfe\xed\xbe\xef\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c", 20), 123456},
      {"/usr/lib/x86_64-linux-gnu/libmpich.so.12", IdentityKind::content_xxh64,
       std::string("\x01\x23\x45\x67\x89\xab\xcd\xef", 8), 987654},
  };
  ImageWriter writer(path, header, {compression_level, true});
  writer.add_area({AreaKind::data_bss, "data", 0x555555558000, kProtRead | kProtWrite}, pages(3, 0, {1}, 1));
  writer.add_area({AreaKind::heap_arena, "heap", 0x7f0000000000, kProtRead | kProtWrite},
                  pages(8, 100, {2, 3, 4, 5}, 2));
  writer.add_area({AreaKind::stack, "stack", 0x7ffffffde000, kProtRead | kProtWrite}, std::vector<std::byte>(4 * 4096));
  writer.add_area({AreaKind::registers, "registers", 0, kProtRead}, pages(0, 256, {}, 3));
  writer.add_area({AreaKind::mpi_records, "mpi", 0, kProtRead}, pages(0, 40, {}, 4));
  writer.finish();
}

std::vector<char> read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void save(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_test_image DIR\n");
    return 2;
  }
  try {
    const std::string dir = argv[1];
    std::filesystem::create_directories(dir);
    write(dir + "/good.img", 0);
    write(dir + "/zstd.img", 3);
    {
      ImageHeader header;
      header.job_id = "yk-escapes";
      header.world_size = 1;
      header.flavour = "openmpi";
      ImageWriter writer(dir + "/escapes.img", header, {0, true});
      writer.add_area({AreaKind::data_bss, "/opt/app/evil\x1b[2J\n.so", 0x555555558000, kProtRead}, pages(1, 0, {}, 5));
      writer.finish();
    }
    const ImageReader good(dir + "/good.img");
    const auto* heap = good.find("heap");
    auto bytes = read(dir + "/good.img");
    const std::uint64_t middle = heap->data_offset + heap->stored_length / 2;
    bytes[middle] ^= 0x04;
    save(dir + "/corrupt.img", bytes);
    bytes[middle] ^= 0x04;
    bytes.resize(middle);
    save(dir + "/truncated.img", bytes);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_test_image: %s\n", e.what());
    return 1;
  }
}
