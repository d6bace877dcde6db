#include "checkpoint/image/dmtcp_image.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>

#include "checkpoint/image/image_error.hpp"

namespace yadokari::image {
namespace {

// Sizes and offsets of DMTCP's on-disk records (docs/formats/dmtcp-image.md), x86-64.
constexpr std::size_t kRecordSize = 4096;  // the process header and every area record
constexpr std::string_view kSignaturePrefix = "DMTCP_CHECKPOINT_IMAGE_v";
constexpr std::string_view kReadableVersion = "4.0";
constexpr std::size_t kSignatureBytes = 32;
constexpr std::size_t kPidAt = 104, kPpidAt = 108, kPeersAt = 128, kElfTypeAt = 132;
constexpr std::size_t kProgramAt = 256, kExecutableAt = 1280, kPathBytes = 1024;
constexpr std::size_t kAreaStartAt = 0, kAreaEndAt = 8, kAreaSizeAt = 16, kAreaOffsetAt = 24;
constexpr std::size_t kAreaProtAt = 32, kAreaFlagsAt = 40, kAreaFileSizeAt = 72;
constexpr std::size_t kAreaPropertiesAt = 80, kAreaNameAt = 88;
constexpr std::int32_t kMapAnonymous = 0x20;
constexpr std::uint64_t kEndOfAreasSize = ~std::uint64_t{0};  // the last record: start 0, size -1

using Record = std::array<unsigned char, kRecordSize>;

template <typename T>
T field(const Record& record, std::size_t at) {
  T value;
  std::memcpy(&value, record.data() + at, sizeof value);  // little-endian, as written
  return value;
}

std::string text_field(const Record& record, std::size_t at, std::size_t bytes) {
  const char* begin = reinterpret_cast<const char*>(record.data() + at);
  return std::string(begin, strnlen(begin, bytes));
}

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// gzopen reads an uncompressed file as it is, so one reader serves both kinds.
GzFile open_image(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw io_error(path, "opening the image", errno);
  gzFile file = gzdopen(fd, "rb");
  if (file == nullptr) {
    ::close(fd);
    throw io_error(path, "opening the image", ENOMEM);
  }
  gzbuffer(file, 1 << 20);
  return GzFile(file);
}

// Reads up to `bytes`; returns how many were read (fewer only at the end of the file).
std::size_t read_some(gzFile file, const std::string& path, void* into, std::size_t bytes) {
  std::size_t done = 0;
  while (done < bytes) {
    const int got = gzread(file, static_cast<char*>(into) + done, static_cast<unsigned>(bytes - done));
    if (got < 0) {
      int code = 0;
      const char* why = gzerror(file, &code);
      throw ImageError(code == Z_ERRNO ? ImageErrorKind::io : ImageErrorKind::corrupt, path,
                       std::string("cannot read the image: ") + why);
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

bool read_record(gzFile file, const std::string& path, Record& record) {
  return read_some(file, path, record.data(), record.size()) == record.size();
}

std::uint64_t skip(gzFile file, const std::string& path, std::uint64_t bytes) {
  static thread_local std::array<char, 1 << 16> sink;
  std::uint64_t skipped = 0;
  while (skipped < bytes) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(sink.size(), bytes - skipped));
    const std::size_t got = read_some(file, path, sink.data(), want);
    skipped += got;
    if (got < want) break;
  }
  return skipped;
}

DmtcpProcess process_of(const Record& header, const std::string& path) {
  const std::string signature = text_field(header, 0, kSignatureBytes);
  if (signature.rfind(kSignaturePrefix, 0) != 0)
    throw ImageError(ImageErrorKind::not_an_image, path, "not a DMTCP checkpoint image");
  DmtcpProcess process;
  process.signature = signature.substr(0, signature.find('\n'));
  const std::string version = process.signature.substr(kSignaturePrefix.size());
  if (version != kReadableVersion)
    throw ImageError(
        ImageErrorKind::unsupported_version, path,
        "DMTCP image version " + version + " is not one this build reads (" + std::string(kReadableVersion) + ")");
  process.pid = field<std::int32_t>(header, kPidAt);
  process.ppid = field<std::int32_t>(header, kPpidAt);
  process.peers = field<std::uint32_t>(header, kPeersAt);
  process.elf64 = field<std::uint32_t>(header, kElfTypeAt) == 1;
  process.program = text_field(header, kProgramAt, kPathBytes);
  process.executable = text_field(header, kExecutableAt, kPathBytes);
  return process;
}

DmtcpArea area_of(const Record& record) {
  DmtcpArea area;
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

}  // namespace

bool is_dmtcp_image(const std::string& path) {
  try {
    GzFile file = open_image(path);
    std::array<char, kSignaturePrefix.size()> start{};
    return read_some(file.get(), path, start.data(), start.size()) == start.size() &&
           std::string_view(start.data(), start.size()) == kSignaturePrefix;
  } catch (const ImageError&) {
    return false;
  }
}

DmtcpImage read_dmtcp_image(const std::string& path) {
  GzFile file = open_image(path);
  DmtcpImage image;
  Record header{};
  if (!read_record(file.get(), path, header))
    throw ImageError(ImageErrorKind::truncated, path, "ends inside the DMTCP process header");
  image.process = process_of(header, path);
  image.gzip = gzdirect(file.get()) == 0;
  // DMTCP writes the header twice (one copy for dmtcp_restart, one for mtcp_restart).
  Record copy{};
  if (!read_record(file.get(), path, copy))
    throw ImageError(ImageErrorKind::truncated, path, "ends inside the second copy of the DMTCP process header");
  if (copy != header)
    throw ImageError(ImageErrorKind::corrupt, path, "the two copies of the DMTCP process header differ");
  image.image_bytes = 2 * kRecordSize;
  for (;;) {
    Record record{};
    if (!read_record(file.get(), path, record))
      throw ImageError(
          ImageErrorKind::truncated, path,
          "ends after " + std::to_string(image.areas.size()) + " areas, without DMTCP's end-of-areas record");
    image.image_bytes += kRecordSize;
    if (field<std::uint64_t>(record, kAreaStartAt) == 0 && field<std::uint64_t>(record, kAreaSizeAt) == kEndOfAreasSize)
      break;
    DmtcpArea area = area_of(record);
    if (area.end < area.start || area.end - area.start != area.size)
      throw ImageError(ImageErrorKind::corrupt, path,
                       "area " + std::to_string(image.areas.size()) + " has size " + std::to_string(area.size) +
                           " but spans " + std::to_string(area.end - area.start) + " bytes");
    if (skip(file.get(), path, area.stored_bytes) != area.stored_bytes)
      throw ImageError(ImageErrorKind::truncated, path,
                       "ends inside the data of area " + std::to_string(image.areas.size()) + " ('" + area.name + "')");
    image.image_bytes += area.stored_bytes;
    image.areas.push_back(std::move(area));
  }
  return image;
}

}  // namespace yadokari::image
