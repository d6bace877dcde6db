#pragma once
// Helpers shared by the image and storage tests: scratch directories, sample images, and byte
// surgery on files.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint/image/area.hpp"
#include "checkpoint/image/image_header.hpp"
#include "checkpoint/image/image_writer.hpp"

namespace yadokari::image::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A header with fixed, recognisable values (created time fixed too, so images are reproducible).
ImageHeader sample_header(std::uint32_t rank = 1, std::uint64_t epoch = 3);

// `pages` 4 KiB pages (plus `tail` bytes) where the pages listed in `zero_pages` are all zero and
// every other byte follows a pattern seeded by `seed` (compressible but not trivially).
std::vector<std::byte> pattern(std::size_t pages, std::size_t tail, const std::vector<std::size_t>& zero_pages,
                               unsigned seed);
// Bytes that do not compress.
std::vector<std::byte> random_bytes(std::size_t size, unsigned seed);

struct SampleArea {
  AreaInfo info;
  std::vector<std::byte> data;
};
// A mix: data with zero pages, a heap with a short last page, an all-zero stack, small blobs,
// an empty area.
std::vector<SampleArea> sample_areas();

WrittenImage write_image(const std::string& path, const std::vector<SampleArea>& areas, WriterOptions options = {},
                         const ImageHeader& header = sample_header());

std::vector<std::byte> read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::vector<std::byte>& bytes);
void flip_bit(const std::string& path, std::uint64_t offset, unsigned bit);

}  // namespace yadokari::image::testing
