// Compressed pages are stored byte-shuffled when that compresses better (floating-point data),
// as they are otherwise, and read back exactly either way; a record that claims shuffled pages
// without compression is refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "checkpoint/image/byte_shuffle.hpp"
#include "checkpoint/image/format.hpp"
#include "checkpoint/image/image_chain.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/image/image_writer.hpp"
#include "checkpoint/image/record_codec.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"

using namespace yadokari::image;
using namespace yadokari::image::testing;

namespace {

constexpr std::size_t kPage = 4096;
const AreaInfo kField{AreaKind::heap_arena, "field", 0x110000000000, kProtRead | kProtWrite};

// A smooth field of doubles whose last bits vary, as a solver's arrays are: high bytes repeat,
// low ones do not. `bytes` need not be a whole number of doubles.
std::vector<std::byte> field(std::size_t bytes, double step) {
  std::vector<std::byte> data(bytes);
  for (std::size_t i = 0; i * 8 < bytes; ++i) {
    const double value = 1.0 + 0.25 * std::sin(step * static_cast<double>(i)) + 1e-9 * static_cast<double>(i % 97);
    std::memcpy(data.data() + i * 8, &value, std::min<std::size_t>(8, bytes - i * 8));
  }
  return data;
}

}  // namespace

TEST_CASE("byte shuffle: whole pages are shuffled in 8-byte lanes and come back, a short tail is copied",
          "[image][shuffle]") {
  const std::vector<std::byte> data = random_bytes(2 * kPage + 100, 9);
  std::vector<std::byte> shuffled(data.size());
  shuffle_pages(data.data(), shuffled.data(), data.size());
  CHECK(shuffled[1] == data[8]);                    // byte 0 of word 1
  CHECK(shuffled[512] == data[1]);                  // byte 1 of word 0
  CHECK(shuffled[kPage + 513] == data[kPage + 9]);  // byte 1 of word 1, second page
  CHECK(std::equal(data.end() - 100, data.end(), shuffled.end() - 100));
  unshuffle_pages(shuffled.data(), shuffled.size());
  CHECK(shuffled == data);
}

TEST_CASE("byte shuffle: floating-point areas are stored shuffled and read back exactly", "[image][shuffle]") {
  TempDir dir;
  // Small (compressed in memory) and large (streamed), each with a short last page.
  const std::vector<SampleArea> areas{
      {{kField.kind, "small field", 0x10000, kField.protection}, field(20 * kPage + 24, 1e-3)},
      {{kField.kind, "large field", 0x200000, kField.protection}, field(300 * kPage + 700, 1e-4)},
      {{AreaKind::registers, "registers", 0, kProtRead}, random_bytes(3000, 5)}};
  write_image(dir.file("zstd.img"), areas, {1, true});
  write_image(dir.file("raw.img"), areas, {0, true});
  const ImageReader zstd(dir.file("zstd.img")), raw(dir.file("raw.img"));
  for (std::size_t i = 0; i < 2; ++i) {
    INFO(areas[i].info.name);
    CHECK(zstd.areas()[i].compressed());
    CHECK(zstd.areas()[i].shuffled());
    CHECK(zstd.areas()[i].stored_length < raw.areas()[i].stored_length * 4 / 5);
    CHECK(zstd.read_area(i) == areas[i].data);
    std::vector<std::byte> memory(areas[i].data.size(), std::byte{0xcc});
    zstd.read_area(i, memory);
    CHECK(memory == areas[i].data);
  }
  CHECK_FALSE(zstd.areas()[2].compressed());  // random: stored raw, never "shuffled"
  CHECK_FALSE(zstd.areas()[2].shuffled());
  CHECK_NOTHROW(zstd.verify());
}

TEST_CASE("byte shuffle: an increment's changed pages are stored shuffled and the chain reads back",
          "[image][shuffle][increment]") {
  TempDir dir;
  const std::vector<std::byte> before = field(200 * kPage + 300, 1e-4);
  std::vector<std::byte> after = before;
  const std::vector<std::byte> changed = field(100 * kPage, 2e-4);
  std::memcpy(after.data() + 50 * kPage, changed.data(), changed.size());  // pages 50-149
  {
    ImageWriter w(dir.file("1.img"), sample_header(1, 1), {1, true});
    w.add_area(kField, before);
    w.finish();
  }
  {
    const ImageReader parent(dir.file("1.img"));
    ImageHeader header = sample_header(1, 2);
    header.parent = ParentImage{1, parent.header_checksum()};
    ImageWriter w(dir.file("2.img"), header, {1, true});
    const std::vector<PageRun> written{{50, 100}, {200, 1}};
    w.add_delta_area(kField, after.data(), after.size(), written, before.size());
    w.finish();
  }
  const ImageReader increment(dir.file("2.img"));
  CHECK(increment.areas()[0].delta());
  CHECK(increment.areas()[0].shuffled());
  std::vector<ImageReader> links;
  links.emplace_back(dir.file("1.img"));
  links.emplace_back(dir.file("2.img"));
  const ImageChain chain(std::move(links));
  CHECK_NOTHROW(chain.verify());
  CHECK(chain.read_area(0) == after);
}

TEST_CASE("byte shuffle: shuffled pages without compression are a corrupt record", "[image][shuffle]") {
  AreaRecord area;
  area.name = "heap";
  area.length = kPage;
  area.stored_length = kPage;
  area.flags = format::kFlagShuffled;
  CHECK_THROWS_WITH(codec::decode_record(codec::encode_area_record(area), 0, "x.img"),
                    Catch::Matchers::Contains("shuffled pages without compression"));
}
