#include "checkpoint/image/record_codec.hpp"

#include <xxhash.h>

#include <cstring>

#include "checkpoint/image/byte_codec.hpp"
#include "checkpoint/image/image_error.hpp"

namespace yadokari::image::codec {
namespace {

using namespace format;

void seal(RecordBytes& bytes) {
  store(bytes.data() + kRecordChecksumOffset,
        static_cast<std::uint64_t>(XXH64(bytes.data(), kRecordChecksumOffset, 0)));
}

ImageError corrupt_record(std::size_t position, const std::string& file, const std::string& what) {
  return ImageError(ImageErrorKind::corrupt, file, "corrupt record #" + std::to_string(position) + ": " + what);
}

}  // namespace

RecordBytes encode_area_record(const AreaRecord& area) {
  RecordBytes bytes{};
  std::memcpy(bytes.data() + kTagOffset, kAreaTag, sizeof kAreaTag);
  store(bytes.data() + kKindOffset, static_cast<std::uint16_t>(area.kind));
  store(bytes.data() + kFlagsOffset, area.flags);
  store(bytes.data() + kAddressOffset, area.address);
  store(bytes.data() + kLengthOffset, area.length);
  store(bytes.data() + kStoredLengthOffset, area.stored_length);
  store(bytes.data() + kZeroPagesOffset, area.zero_pages);
  store(bytes.data() + kDataChecksumOffset, area.checksum);
  store(bytes.data() + kProtectionOffset, area.protection);
  std::memcpy(bytes.data() + kNameOffset, area.name.data(), area.name.size());  // checked by the writer
  seal(bytes);
  return bytes;
}

RecordBytes encode_end_record(std::uint64_t area_count, std::uint64_t header_checksum) {
  RecordBytes bytes{};
  std::memcpy(bytes.data() + kTagOffset, kEndTag, sizeof kEndTag);
  store(bytes.data() + kAreaCountOffset, area_count);
  store(bytes.data() + kEndHeaderChecksumOffset, header_checksum);
  seal(bytes);
  return bytes;
}

DecodedRecord decode_record(const RecordBytes& bytes, std::size_t position, const std::string& file) {
  if (load<std::uint64_t>(bytes.data() + kRecordChecksumOffset) != XXH64(bytes.data(), kRecordChecksumOffset, 0))
    throw ImageError(ImageErrorKind::checksum_mismatch, file,
                     "checksum mismatch in record #" + std::to_string(position));

  DecodedRecord record;
  if (std::memcmp(bytes.data() + kTagOffset, kEndTag, sizeof kEndTag) == 0) {
    record.is_end = true;
    record.area_count = load<std::uint64_t>(bytes.data() + kAreaCountOffset);
    record.header_checksum = load<std::uint64_t>(bytes.data() + kEndHeaderChecksumOffset);
    return record;
  }
  if (std::memcmp(bytes.data() + kTagOffset, kAreaTag, sizeof kAreaTag) != 0)
    throw corrupt_record(position, file, "unknown record tag");

  AreaRecord& area = record.area;
  area.kind = static_cast<AreaKind>(load<std::uint16_t>(bytes.data() + kKindOffset));
  area.flags = load<std::uint16_t>(bytes.data() + kFlagsOffset);
  area.address = load<std::uint64_t>(bytes.data() + kAddressOffset);
  area.length = load<std::uint64_t>(bytes.data() + kLengthOffset);
  area.stored_length = load<std::uint64_t>(bytes.data() + kStoredLengthOffset);
  area.zero_pages = load<std::uint64_t>(bytes.data() + kZeroPagesOffset);
  area.checksum = load<std::uint64_t>(bytes.data() + kDataChecksumOffset);
  area.protection = load<std::uint32_t>(bytes.data() + kProtectionOffset);
  const auto* name = reinterpret_cast<const char*>(bytes.data() + kNameOffset);
  area.name.assign(name, strnlen(name, kMaxNameLength));

  if (area.flags & ~(kFlagCompressed | kFlagZeroPagesElided | kFlagDelta | kFlagInDmtcpPart | kFlagShuffled))
    throw corrupt_record(position, file, "unknown flags");
  if ((area.flags & kFlagShuffled) && !(area.flags & kFlagCompressed))
    throw corrupt_record(position, file, "shuffled pages without compression");
  if ((area.flags & kFlagInDmtcpPart) && (area.flags != kFlagInDmtcpPart || area.stored_length != 0))
    throw corrupt_record(position, file, "an area in the DMTCP part with other flags or data of its own");
  if (area.delta() && area.zero_pages_elided())
    throw corrupt_record(position, file, "a delta area cannot elide zero pages");
  if (area.zero_pages > area.pages()) throw corrupt_record(position, file, "more zero pages than pages");
  if (area.zero_pages != 0 && !area.zero_pages_elided())
    throw corrupt_record(position, file, "zero pages counted but not elided");
  return record;
}

}  // namespace yadokari::image::codec
