#pragma once
// Reads an image. Opening reads the header and every area record (not the data), so a truncated
// or structurally damaged image is refused right away; data is read and checked per area.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "image/area.hpp"
#include "image/image_header.hpp"

namespace yadokari::image {

class ImageReader {
 public:
  // Throws ImageError: not_an_image, unsupported_version, truncated, checksum_mismatch (header
  // or a record), corrupt, io.
  explicit ImageReader(std::string path);
  ~ImageReader();
  ImageReader(ImageReader&& other) noexcept;
  ImageReader& operator=(ImageReader&&) = delete;
  ImageReader(const ImageReader&) = delete;
  ImageReader& operator=(const ImageReader&) = delete;

  const std::string& path() const { return path_; }
  const ImageHeader& header() const { return header_; }
  const std::vector<AreaRecord>& areas() const { return areas_; }
  std::uint64_t file_size() const { return file_size_; }

  // The first area with this name, or nullptr.
  const AreaRecord* find(const std::string& name) const;

  // Reads area `index` into `out` (exactly its length, e.g. the memory it is restored to) and
  // verifies its checksum; throws ImageError(checksum_mismatch) naming the area otherwise.
  // With zero_fill false, elided pages are left as they are (for memory known to be zero).
  void read_area(std::size_t index, std::span<std::byte> out, bool zero_fill = true) const;
  std::vector<std::byte> read_area(std::size_t index) const;

  // Reads every area and checks every checksum.
  void verify() const;

 private:
  void read_records();
  // Streams an area's contents into `out` (nullptr: into a scratch buffer, for verify) and checks them.
  void walk(const AreaRecord& area, std::byte* out, bool zero_fill) const;

  std::string path_;
  int fd_ = -1;
  std::uint64_t file_size_ = 0;
  ImageHeader header_;
  std::uint64_t header_checksum_ = 0;
  std::size_t header_length_ = 0;
  std::vector<AreaRecord> areas_;
};

}  // namespace yadokari::image
