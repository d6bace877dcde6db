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

using dmtcp::kRecordSize;
using dmtcp::kSignaturePrefix;
using dmtcp::Record;

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
  image.process = dmtcp::decode_process(header, path);
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
    if (dmtcp::is_end_of_areas(record)) break;
    DmtcpArea area = dmtcp::decode_area(record);
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
