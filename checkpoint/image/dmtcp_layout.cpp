#include "checkpoint/image/dmtcp_layout.hpp"

#include <algorithm>
#include <cstring>

#include "checkpoint/image/image_error.hpp"

namespace yadokari::image::dmtcp {
namespace {

// Offsets in DMTCP's records (docs/formats/dmtcp-image.md).
constexpr std::size_t kSignatureBytes = 32;
constexpr std::size_t kPidAt = 104, kPpidAt = 108, kPeersAt = 128, kElfTypeAt = 132;
constexpr std::size_t kProgramAt = 256, kExecutableAt = 1280, kPathBytes = 1024;
constexpr std::size_t kAreaStartAt = 0, kAreaEndAt = 8, kAreaSizeAt = 16, kAreaOffsetAt = 24;
constexpr std::size_t kAreaProtAt = 32, kAreaFlagsAt = 40, kAreaFileSizeAt = 72;
constexpr std::size_t kAreaPropertiesAt = 80, kAreaNameAt = 88;
constexpr std::uint64_t kEndOfAreasSize = ~std::uint64_t{0};  // the last record: start 0, size -1

template <typename T>
T field(const Record& record, std::size_t at) {
  T value;
  std::memcpy(&value, record.data() + at, sizeof value);  // little-endian, as written
  return value;
}

template <typename T>
void put(Record& record, std::size_t at, T value) {
  std::memcpy(record.data() + at, &value, sizeof value);
}

std::string text_field(const Record& record, std::size_t at, std::size_t bytes) {
  const char* begin = reinterpret_cast<const char*>(record.data() + at);
  return std::string(begin, strnlen(begin, bytes));
}

// NUL-terminated within `bytes` (a longer text is cut).
void put_text(Record& record, std::size_t at, std::size_t bytes, std::string_view text) {
  std::memcpy(record.data() + at, text.data(), std::min(text.size(), bytes - 1));
}

}  // namespace

bool has_signature(const Record& header) {
  return std::memcmp(header.data(), kSignaturePrefix.data(), kSignaturePrefix.size()) == 0;
}

Process decode_process(const Record& header, const std::string& file) {
  if (!has_signature(header)) throw ImageError(ImageErrorKind::not_an_image, file, "not a DMTCP checkpoint image");
  Process process;
  const std::string signature = text_field(header, 0, kSignatureBytes);
  process.signature = signature.substr(0, signature.find('\n'));
  const std::string version = process.signature.substr(kSignaturePrefix.size());
  if (version != kReadableVersion)
    throw ImageError(
        ImageErrorKind::unsupported_version, file,
        "DMTCP image version " + version + " is not one this build reads (" + std::string(kReadableVersion) + ")");
  process.pid = field<std::int32_t>(header, kPidAt);
  process.ppid = field<std::int32_t>(header, kPpidAt);
  process.peers = field<std::uint32_t>(header, kPeersAt);
  process.elf64 = field<std::uint32_t>(header, kElfTypeAt) == 1;
  process.program = text_field(header, kProgramAt, kPathBytes);
  process.executable = text_field(header, kExecutableAt, kPathBytes);
  return process;
}

Area decode_area(const Record& record) {
  Area area;
  area.start = field<std::uint64_t>(record, kAreaStartAt);
  area.end = field<std::uint64_t>(record, kAreaEndAt);
  area.size = field<std::uint64_t>(record, kAreaSizeAt);
  area.offset = field<std::uint64_t>(record, kAreaOffsetAt);
  area.prot = static_cast<std::int32_t>(field<std::uint64_t>(record, kAreaProtAt));
  area.flags = static_cast<std::int32_t>(field<std::uint64_t>(record, kAreaFlagsAt));
  area.properties = field<std::uint64_t>(record, kAreaPropertiesAt);
  area.name = text_field(record, kAreaNameAt, kPathBytes);
  // What follows the record: nothing for a zero run or a parent, a file mapping's bytes up to the
  // file's end (DMTCP's mmapFileSize), otherwise the whole area.
  const auto file_size = field<std::int64_t>(record, kAreaFileSizeAt);
  if (area.zero() || area.parent())
    area.stored_bytes = 0;
  else if ((area.flags & kMapAnonymous) == 0 && file_size > 0)
    area.stored_bytes = static_cast<std::uint64_t>(file_size);
  else
    area.stored_bytes = area.size;
  return area;
}

bool is_end_of_areas(const Record& record) {
  return field<std::uint64_t>(record, kAreaStartAt) == 0 &&
         field<std::uint64_t>(record, kAreaSizeAt) == kEndOfAreasSize;
}

Record encode_process(const Process& process) {
  Record header{};
  put_text(header, 0, kSignatureBytes, kSignature);
  put(header, kPidAt, process.pid);
  put(header, kPpidAt, process.ppid);
  put(header, kPeersAt, process.peers);
  put(header, kElfTypeAt, std::uint32_t{process.elf64 ? 1u : 0u});
  put_text(header, kProgramAt, kPathBytes, process.program);
  put_text(header, kExecutableAt, kPathBytes, process.executable);
  return header;
}

Record encode_area(std::uint64_t start, std::uint64_t size, std::uint32_t prot, const std::string& name,
                   std::uint64_t properties) {
  Record record{};
  put(record, kAreaStartAt, start);
  put(record, kAreaEndAt, start + size);
  put(record, kAreaSizeAt, size);
  put(record, kAreaProtAt, std::uint64_t{prot});
  put(record, kAreaFlagsAt, std::uint64_t{kMapPrivate | kMapAnonymous});
  put(record, kAreaFileSizeAt, std::int64_t{-1});  // no file behind it
  put(record, kAreaPropertiesAt, properties);
  put_text(record, kAreaNameAt, kPathBytes, name);
  return record;
}

Record encode_end_of_areas() {
  Record record{};
  put(record, kAreaSizeAt, kEndOfAreasSize);
  return record;
}

}  // namespace yadokari::image::dmtcp
