#pragma once
// Encoding and decoding of the fixed-size area and end records (internal).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "checkpoint/image/area.hpp"
#include "checkpoint/image/format.hpp"

namespace yadokari::image::codec {

using RecordBytes = std::array<std::byte, format::kRecordSize>;

RecordBytes encode_area_record(const AreaRecord& area);
RecordBytes encode_end_record(std::uint64_t area_count, std::uint64_t header_checksum);

struct DecodedRecord {
  bool is_end = false;
  AreaRecord area;                    // when !is_end (index and offsets are the caller's to fill)
  std::uint64_t area_count = 0;       // when is_end
  std::uint64_t header_checksum = 0;  // when is_end
};

// Verifies the record checksum and decodes. `position` is the record's number (0 = the first
// area's record), used in errors.
DecodedRecord decode_record(const RecordBytes& bytes, std::size_t position, const std::string& file);

}  // namespace yadokari::image::codec
