#pragma once
// An area is one contiguous piece of a rank's state: a memory range, or a blob the shim serialised.
#include <cstdint>
#include <string>

#include "checkpoint/image/area_kind.hpp"

namespace yadokari::image {

// What the writer is told about an area (its contents are passed separately).
struct AreaInfo {
  AreaKind kind = AreaKind::other;
  std::string name;           // at most 64 bytes, no NUL; shown by `yadokari inspect`
  std::uint64_t address = 0;  // where it lives in the rank (0 for blobs that are not memory)
  std::uint32_t protection = kProtRead | kProtWrite;
};

// What the reader lists: an area record as stored, plus where its data is in the file.
struct AreaRecord {
  std::uint32_t index = 0;  // position in the image, from 0
  AreaKind kind = AreaKind::other;
  std::string name;
  std::uint64_t address = 0;
  std::uint64_t length = 0;  // bytes in memory, zero pages included
  std::uint32_t protection = 0;
  std::uint16_t flags = 0;
  std::uint64_t stored_length = 0;  // bytes of data in the file after the record
  std::uint64_t zero_pages = 0;     // 4 KiB pages not stored because they were all zero
  std::uint64_t checksum = 0;       // xxh64 of the full uncompressed contents (zero pages included)
  std::uint64_t record_offset = 0;  // file offset of the record
  std::uint64_t data_offset = 0;    // file offset of the data

  bool compressed() const;
  bool zero_pages_elided() const;
  bool delta() const;
  bool in_dmtcp_part() const;   // its bytes are in the DMTCP part (an image in DMTCP's layout)
  bool shuffled() const;        // the compressed pages are byte-shuffled (byte_shuffle.hpp)
  std::uint64_t pages() const;  // 4 KiB pages spanned, the last one possibly short
};

}  // namespace yadokari::image
