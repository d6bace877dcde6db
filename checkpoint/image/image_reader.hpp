#pragma once
// Reads an image. Opening reads the header and every area record (not the data), so a truncated
// or structurally damaged image is refused right away; data is read and checked per area.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "checkpoint/image/area.hpp"
#include "checkpoint/image/delta_area.hpp"
#include "checkpoint/image/image_header.hpp"
#include "checkpoint/image/image_layout.hpp"

namespace yadokari::image {

struct DmtcpPart;

// True when the file starts with DMTCP's signature (uncompressed) and yadokari's records follow its
// end-of-areas record: an image yadokari wrote in DMTCP's layout, not one DMTCP wrote. False for
// anything else, a DMTCP part too damaged to find the end of included.
bool holds_yadokari_records(const std::string& path);

class ImageReader {
 public:
  // Either layout, told apart by the file's first bytes (yadokari's magic or DMTCP's signature).
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
  ImageLayout layout() const { return dmtcp_ ? ImageLayout::dmtcp : ImageLayout::yadokari; }
  // What an increment's header names as its parent (ParentImage::header_checksum).
  std::uint64_t header_checksum() const { return header_checksum_; }

  // The first area with this name, or nullptr.
  const AreaRecord* find(const std::string& name) const;

  // Reads area `index` into `out` (exactly its length, e.g. the memory it is restored to) and
  // verifies its checksum; throws ImageError(checksum_mismatch) naming the area otherwise. A delta
  // area (an increment's) cannot be read alone: ImageChain reads it (ImageError usage here).
  // With zero_fill false, elided pages are left as they are (for memory known to be zero).
  void read_area(std::size_t index, std::span<std::byte> out, bool zero_fill = true) const;
  std::vector<std::byte> read_area(std::size_t index) const;

  // Reads every area and checks every checksum (of a delta area: its own data, not the parent's).
  void verify() const;

  // A delta area's header: the hash of the full contents and the parent area's length.
  DeltaHeader delta_header(std::size_t index) const;

  // Applies delta area `index` to `out`, which holds the parent's contents of the area (or
  // anything, beyond the parent's length): zeroes what is past the parent's whole pages, writes
  // the stored pages (those beyond out.size() are read and dropped) and checks the delta's own
  // checksum. Returns the hash the full contents must have afterwards.
  std::uint64_t apply_delta(std::size_t index, std::span<std::byte> out) const;

 private:
  void read_records();
  void claim_dmtcp_area(AreaRecord& area, std::uint32_t position, std::size_t number);
  // Streams an area's contents into `out` (nullptr: into a scratch buffer, for verify) and checks them.
  void walk(const AreaRecord& area, std::byte* out, bool zero_fill) const;
  // The same for a delta area; `out` (may be null) receives the stored pages, clipped to out_size.
  DeltaHeader walk_delta(const AreaRecord& area, std::byte* out, std::size_t out_size) const;
  void walk_dmtcp(const AreaRecord& area, std::byte* out, bool zero_fill) const;

  std::string path_;
  int fd_ = -1;
  std::unique_ptr<DmtcpPart> dmtcp_;  // DMTCP's layout: its part, before yadokari's header
  std::uint64_t header_offset_ = 0;   // where yadokari's header begins
  std::uint64_t file_size_ = 0;
  ImageHeader header_;
  std::uint64_t header_checksum_ = 0;
  std::size_t header_length_ = 0;
  std::vector<AreaRecord> areas_;
  std::vector<std::size_t> dmtcp_area_of_;  // by area index: its DMTCP mapping (areas in the DMTCP part)
};

}  // namespace yadokari::image
