// Increments: images that store only the pages changed since their parent, read back through the
// chain of images exactly as the memory was, and refused with the broken link named.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint/image/delta_area.hpp"
#include "checkpoint/image/image_chain.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/image/image_writer.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"

using namespace yadokari::image;
using namespace yadokari::image::testing;

namespace {

constexpr std::size_t kPage = 4096;

const AreaInfo kHeap{AreaKind::heap_arena, "arena", 0x110000000000, kProtRead | kProtWrite};
const AreaInfo kStack{AreaKind::stack, "stack", 0x100ffff00000, kProtRead | kProtWrite};
const AreaInfo kBlob{AreaKind::mpi_records, "shim-state", 0, kProtRead};
const AreaInfo kMapping{AreaKind::mappings, "mapping", 0x120000000000, kProtRead | kProtWrite};

ImageHeader header_of(std::uint64_t epoch, const ImageReader* parent) {
  ImageHeader header = sample_header(1, epoch);
  header.created_unix_ns += static_cast<std::int64_t>(epoch);
  if (parent) header.parent = ParentImage{parent->header().epoch, parent->header_checksum()};
  return header;
}

void set_page(std::vector<std::byte>& data, std::size_t page, unsigned char value) {
  std::memset(data.data() + page * kPage, value, std::min(kPage, data.size() - page * kPage));
}

// The memory of one rank at three epochs, and the pages written between them.
struct Epochs {
  std::vector<std::byte> heap1 = pattern(8, 100, {3}, 1);  // 8 pages and a short one, page 3 zero
  std::vector<std::byte> stack1 = pattern(2, 0, {}, 2);
  std::vector<std::byte> heap2, heap3, stack3, mapping3;
  Epochs() {
    heap2 = heap1;
    set_page(heap2, 2, 0x22);
    set_page(heap2, 5, 0x55);
    heap2.resize(heap2.size() + 3 * kPage);  // grown: the short page and three new ones
    set_page(heap2, 8, 0x88);                // its old short page, now a whole one
    set_page(heap2, 10, 0xaa);               // page 9 stays zero
    heap3 = heap2;
    heap3.resize(6 * kPage + 7);  // shrunk
    set_page(heap3, 1, 0x11);
    stack3 = stack1;
    mapping3 = pattern(3, 0, {1}, 3);
  }
};

struct Chain {
  TempDir dir;
  Epochs m;
  std::string base, inc1, inc2;
  explicit Chain(WriterOptions options = {}, std::vector<PageRun> heap3_written = {{1, 1}}) {
    base = dir.file("1.img");
    inc1 = dir.file("2.img");
    inc2 = dir.file("3.img");
    {
      ImageWriter w(base, header_of(1, nullptr), options);
      w.add_area(kBlob, std::vector<std::byte>(100, std::byte{1}));
      w.add_area(kHeap, m.heap1);
      w.add_area(kStack, m.stack1);
      w.finish();
    }
    {
      const ImageReader parent(base);
      ImageWriter w(inc1, header_of(2, &parent), options);
      w.add_area(kBlob, std::vector<std::byte>(90, std::byte{2}));
      const std::vector<PageRun> written{{2, 1}, {5, 1}};
      w.add_delta_area(kHeap, m.heap2.data(), m.heap2.size(), written, m.heap1.size());
      w.add_delta_area(kStack, m.stack1.data(), m.stack1.size(), {}, m.stack1.size());
      w.finish();
    }
    {
      const ImageReader parent(inc1);
      ImageWriter w(inc2, header_of(3, &parent), options);
      w.add_area(kBlob, std::vector<std::byte>(80, std::byte{3}));
      w.add_delta_area(kHeap, m.heap3.data(), m.heap3.size(), heap3_written, m.heap2.size());
      w.add_delta_area(kStack, m.stack3.data(), m.stack3.size(), {}, m.stack1.size());
      w.add_delta_area(kMapping, m.mapping3.data(), m.mapping3.size(), {}, 0);
      w.finish();
    }
  }
  std::vector<ImageReader> readers(std::vector<std::string> paths) const {
    std::vector<ImageReader> links;
    for (const auto& path : paths) links.emplace_back(path);
    return links;
  }
  ImageChain chain() const { return ImageChain(readers({base, inc1, inc2})); }
};

ImageError error_of(auto&& work) {
  try {
    work();
  } catch (const ImageError& e) {
    return e;
  }
  FAIL("no ImageError");
  return ImageError(ImageErrorKind::usage, "", "");
}

}  // namespace

TEST_CASE("increments: a chain restores every area as it was at the newest epoch", "[image][increment]") {
  for (const int level : {0, 1}) {
    Chain c({level, true});
    const ImageChain chain = c.chain();
    chain.verify();
    const auto& areas = chain.newest().areas();
    REQUIRE(areas.size() == 4);
    CHECK(chain.read_area(0) == std::vector<std::byte>(80, std::byte{3}));
    CHECK(chain.read_area(1) == c.m.heap3);
    CHECK(chain.read_area(2) == c.m.stack3);
    CHECK(chain.read_area(3) == c.m.mapping3);
    // The middle epoch through its own chain.
    const ImageChain middle(c.readers({c.base, c.inc1}));
    CHECK(middle.read_area(1) == c.m.heap2);
  }
}

TEST_CASE("increments: only changed and new pages are stored", "[image][increment]") {
  Chain c;
  const ImageReader inc1(c.inc1);
  CHECK(inc1.header().version == kIncrementVersion);
  CHECK(inc1.header().parent->epoch == 1);
  CHECK(ImageReader(c.base).header().version == kFullImageVersion);
  // Heap: pages 2 and 5 written, 8 (the old short page, not wholly inside the parent) and 10 new
  // and not zero; 9 is new but zero.
  const auto heap = inc1.delta_header(1);
  CHECK(heap.parent_length == c.m.heap1.size());
  CHECK(heap.runs == std::vector<PageRun>{{2, 1}, {5, 1}, {8, 1}, {10, 1}});
  CHECK(inc1.areas()[1].stored_length == (24 + 16 * 4) + 4 * kPage);
  CHECK(inc1.delta_header(2).runs.empty());
  CHECK(inc1.areas()[2].stored_length == (24 + 16 * 0));
}

TEST_CASE("increments: the writer and the reader keep deltas in increments", "[image][increment]") {
  TempDir dir;
  const auto data = pattern(2, 0, {}, 4);
  ImageWriter full(dir.file("full.img"), sample_header());
  CHECK(error_of([&] { full.add_delta_area(kHeap, data.data(), data.size(), {}, data.size()); }).detail() ==
        "area 'arena' is a delta, but the image is not an increment (no parent in its header)");
  Chain c;
  const ImageReader inc1(c.inc1);
  CHECK(error_of([&] { inc1.read_area(1); }).detail() ==
        "area 'arena' is a delta against epoch 1: it is read through its chain of images");
}

TEST_CASE("increments: a changed page left out of the written list is caught at restore", "[image][increment]") {
  Chain c({}, {});  // page 1 changed before epoch 3 but not listed
  const ImageChain chain = c.chain();
  chain.verify();  // every link is intact: only the applied contents show it
  CHECK(error_of([&] { chain.read_area(1); }).what() ==
        c.inc2 + ": checksum mismatch in area 'arena' restored from the chain of 3 images");
}

TEST_CASE("increments: a broken link is named", "[image][increment]") {
  Chain c;
  SECTION("a damaged run list is found when the chain is put together") {
    flip_bit(c.inc1, ImageReader(c.inc1).areas()[1].data_offset + 30, 2);
    CHECK(error_of([&] { c.chain(); }).what() == c.inc1 + ": checksum mismatch in area 'arena'");
  }
  SECTION("a damaged page of an increment") {
    flip_bit(c.inc1, ImageReader(c.inc1).areas()[1].data_offset + 24 + 4 * 16 + 100, 2);
    const ImageChain chain = c.chain();
    CHECK(error_of([&] { chain.verify(); }).what() == c.inc1 + ": checksum mismatch in area 'arena'");
    CHECK(error_of([&] { chain.read_area(1); }).what() == c.inc1 + ": checksum mismatch in area 'arena'");
  }
  SECTION("a damaged base") {
    flip_bit(c.base, ImageReader(c.base).areas()[1].data_offset + 5000, 0);
    const ImageChain chain = c.chain();
    CHECK(error_of([&] { chain.verify(); }).what() == c.base + ": checksum mismatch in area 'arena'");
  }
  SECTION("a parent written again for the same epoch") {
    auto again = header_of(1, nullptr);
    again.created_unix_ns += 1000;
    ImageWriter w(c.base, again);
    w.add_area(kHeap, c.m.heap1);
    w.add_area(kStack, c.m.stack1);
    w.finish();
    CHECK_THAT(error_of([&] { c.chain(); }).what(),
               Catch::StartsWith(c.inc1 + ": broken chain: it is an increment of epoch 1 (header "));
  }
  SECTION("a link missing") {
    CHECK_THAT(error_of([&] {
                 ImageChain(c.readers({c.base, c.inc2}));
               }).what(),
               Catch::StartsWith(c.inc2 + ": broken chain: it is an increment of epoch 2 (header "));
    CHECK(error_of([&] {
            ImageChain(c.readers({c.inc1, c.inc2}));
          }).what() == c.inc1 + ": broken chain: it is an increment of epoch 1, whose image is not in the chain");
  }
  SECTION("a parent area of another length") {
    TempDir dir;
    const ImageReader parent(c.base);
    ImageWriter w(dir.file("bad.img"), header_of(2, &parent));
    w.add_delta_area(kHeap, c.m.heap2.data(), c.m.heap2.size(), {}, c.m.heap1.size() + 1);
    w.finish();
    CHECK(error_of([&] {
            ImageChain(c.readers({c.base, dir.file("bad.img")}));
          }).what() == dir.file("bad.img") + ": broken chain: area 'arena' is a delta against " +
                           std::to_string(c.m.heap1.size() + 1) + " bytes, but epoch 1's area has " +
                           std::to_string(c.m.heap1.size()));
  }
}

TEST_CASE("increments: pages_touching maps address ranges to an area's pages", "[image][increment]") {
  // An area that starts inside a page: its page 0 spans two memory pages.
  const std::uint64_t at = 0x1000 + 0x1e8;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> written{
      {0x1000, 0x2000}, {0x5000, 0x7000}, {0x9000, 0xa000}};
  // 0x5000..0x61e8 (the area's end) is the area's offsets 0x3e18..0x4fff: its pages 3 and 4.
  CHECK(pages_touching(at, 5 * kPage, written) == std::vector<PageRun>{{0, 1}, {3, 2}});
}

TEST_CASE("increments: open_image_chain follows the parents through the epoch directories", "[image][increment]") {
  namespace fs = std::filesystem;
  Chain c;
  TempDir ckpt;
  auto placed = [&](int epoch) { return (ckpt.path() / std::to_string(epoch) / "rank-1.img").string(); };
  int epoch = 1;
  for (const auto& file : {c.base, c.inc1, c.inc2}) {
    fs::create_directories(ckpt.path() / std::to_string(epoch));
    fs::copy_file(file, placed(epoch++));
  }
  SECTION("the whole chain, base first") {
    const ImageChain chain = open_image_chain(placed(3));
    REQUIRE(chain.links().size() == 3);
    CHECK(chain.links()[0].path() == placed(1));
    CHECK(chain.links()[2].path() == placed(3));
    CHECK(chain.read_area(1) == c.m.heap3);
    CHECK(open_image_chain(placed(2)).read_area(1) == c.m.heap2);
    CHECK(open_image_chain(placed(1)).links().size() == 1);
  }
  SECTION("a missing middle link names it") {
    fs::remove(placed(2));
    CHECK(error_of([&] { open_image_chain(placed(3)); }).what() ==
          placed(3) + ": broken chain: it is an increment of epoch 2, but " + placed(2) + " is missing");
  }
  SECTION("a middle link written again for its epoch is not the parent") {
    fs::remove(placed(2));
    fs::copy_file(c.base, placed(2));  // a full image where the increment was
    CHECK_THAT(error_of([&] { open_image_chain(placed(3)); }).what(),
               Catch::StartsWith(placed(3) + ": broken chain: it is an increment of epoch 2 (header "));
  }
  SECTION("a damaged middle link is found when its pages are applied") {
    flip_bit(placed(2), ImageReader(placed(2)).areas()[1].data_offset + 24 + 4 * 16 + 100, 2);
    const ImageChain chain = open_image_chain(placed(3));
    CHECK(error_of([&] { chain.read_area(1); }).what() == placed(2) + ": checksum mismatch in area 'arena'");
  }
}
