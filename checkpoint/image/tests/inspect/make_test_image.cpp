// Writes the images the `yadokari inspect` tests look at, into DIR:
//   good.img       deterministic, uncompressed (its listing is compared with expected_inspect.txt)
//   zstd.img       the same areas, compressed
//   corrupt.img    good.img with one bit flipped inside the data of area 'heap'
//   truncated.img  good.img cut off inside the data of area 'heap'
//   dmtcp.img      good.img's areas in DMTCP's layout; dmtcp-corrupt.img with a bit flipped in its heap
//   escapes.img    an area whose name (a mapped file's path) holds an escape sequence and a newline
//   chain/{7,8,9}/rank-2.img     good.img's areas at epoch 7, then two increments of them
//   chainbad/{7,8,9}/rank-2.img  the same with one bit flipped in a page of epoch 8's heap
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/image/image_writer.hpp"

using namespace yadokari::image;

namespace {

std::vector<std::byte> pages(std::size_t count, std::size_t tail, std::vector<std::size_t> zero, unsigned seed) {
  std::vector<std::byte> data(count * 4096 + tail);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>((i * 131 + seed * 7 + i / 97) & 0xff);
  for (const auto page : zero)
    for (std::size_t i = page * 4096; i < std::min(data.size(), (page + 1) * 4096); ++i) data[i] = std::byte{0};
  return data;
}

ImageHeader sample_header() {
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
  return header;
}

void write(const std::string& path, int compression_level, ImageLayout layout = ImageLayout::yadokari) {
  ImageWriter writer(path, sample_header(), {compression_level, true, layout});
  writer.add_area({AreaKind::data_bss, "data", 0x555555558000, kProtRead | kProtWrite}, pages(3, 0, {1}, 1));
  writer.add_area({AreaKind::heap_arena, "heap", 0x7f0000000000, kProtRead | kProtWrite},
                  pages(8, 100, {2, 3, 4, 5}, 2));
  writer.add_area({AreaKind::stack, "stack", 0x7ffffffde000, kProtRead | kProtWrite}, std::vector<std::byte>(4 * 4096));
  writer.add_area({AreaKind::registers, "registers", 0, kProtRead}, pages(0, 256, {}, 3));
  writer.add_area({AreaKind::mpi_records, "mpi", 0, kProtRead}, pages(0, 40, {}, 4));
  writer.finish();
}

// Epoch 7 full; 8 changes the heap's first page; 9 changes the stack's second page.
void write_chain(const std::string& dir) {
  const AreaInfo heap_area{AreaKind::heap_arena, "heap", 0x7f0000000000, kProtRead | kProtWrite};
  const AreaInfo stack_area{AreaKind::stack, "stack", 0x7ffffffde000, kProtRead | kProtWrite};
  const AreaInfo registers_area{AreaKind::registers, "registers", 0, kProtRead};
  auto heap = pages(8, 100, {2, 3, 4, 5}, 2);
  std::vector<std::byte> stack(4 * 4096);
  std::uint64_t parent_checksum = 0;
  for (const std::uint64_t epoch : {7, 8, 9}) {
    std::filesystem::create_directories(dir + "/" + std::to_string(epoch));
    const std::string path = dir + "/" + std::to_string(epoch) + "/rank-2.img";
    ImageHeader header = sample_header();
    header.epoch = epoch;
    header.created_unix_ns += static_cast<std::int64_t>(epoch);
    if (epoch > 7) header.parent = ParentImage{epoch - 1, parent_checksum};
    ImageWriter writer(path, header, {0, true});
    if (epoch == 7) {
      writer.add_area(heap_area, heap);
      writer.add_area(stack_area, stack);
    } else {
      const std::vector<PageRun> heap_written{{0, epoch == 8 ? 1u : 0u}};
      const std::vector<PageRun> stack_written{{1, epoch == 9 ? 1u : 0u}};
      if (epoch == 8) heap[10] = std::byte{0x5a};
      if (epoch == 9) stack[4096 + 3] = std::byte{0xa5};
      writer.add_delta_area(heap_area, heap.data(), heap.size(), heap_written, heap.size());
      writer.add_delta_area(stack_area, stack.data(), stack.size(), stack_written, stack.size());
    }
    writer.add_area(registers_area, pages(0, 256, {}, 3 + static_cast<unsigned>(epoch)));
    writer.finish();
    parent_checksum = ImageReader(path).header_checksum();
  }
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
    write(dir + "/dmtcp.img", 0, ImageLayout::dmtcp);
    {
      const ImageReader dmtcp(dir + "/dmtcp.img");
      auto flipped = read(dir + "/dmtcp.img");
      flipped[dmtcp.find("heap")->data_offset + 4096 + 7] ^= 0x01;
      save(dir + "/dmtcp-corrupt.img", flipped);
    }
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
    write_chain(dir + "/chain");
    std::filesystem::remove_all(dir + "/chainbad");
    std::filesystem::copy(dir + "/chain", dir + "/chainbad", std::filesystem::copy_options::recursive);
    const std::string bad = dir + "/chainbad/8/rank-2.img";
    const ImageReader increment(bad);
    auto damaged = read(bad);
    damaged[increment.find("heap")->data_offset + 24 + 16 + 200] ^= 0x10;  // inside the stored page
    save(bad, damaged);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_test_image: %s\n", e.what());
    return 1;
  }
}
