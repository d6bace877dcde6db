#include "checkpoint/image/dmtcp_part.hpp"

#include "checkpoint/image/fd_io.hpp"
#include "checkpoint/image/format.hpp"
#include "checkpoint/image/image_error.hpp"

namespace yadokari::image {
namespace {

bool read_record(int fd, std::uint64_t offset, dmtcp::Record& record, const std::string& file) {
  return io::read_at(fd, offset, record.data(), record.size(), file) == record.size();
}

}  // namespace

bool starts_with_dmtcp_signature(int fd, const std::string& file) {
  dmtcp::Record header{};
  io::read_at(fd, 0, header.data(), dmtcp::kSignaturePrefix.size(), file);
  return dmtcp::has_signature(header);
}

DmtcpPart read_dmtcp_part(int fd, std::uint64_t file_size, const std::string& file) {
  DmtcpPart part;
  dmtcp::Record header{};
  if (!read_record(fd, 0, header, file))
    throw ImageError(ImageErrorKind::truncated, file, "truncated inside the DMTCP process header");
  part.process = dmtcp::decode_process(header, file);
  dmtcp::Record copy{};
  if (!read_record(fd, dmtcp::kRecordSize, copy, file))
    throw ImageError(ImageErrorKind::truncated, file, "truncated inside the second copy of the DMTCP process header");
  if (copy != header)
    throw ImageError(ImageErrorKind::corrupt, file, "the two copies of the DMTCP process header differ");
  std::uint64_t offset = 2 * dmtcp::kRecordSize;
  for (;;) {
    DmtcpPartArea entry;
    if (!read_record(fd, offset, entry.record, file))
      throw ImageError(
          ImageErrorKind::truncated, file,
          "truncated after " + std::to_string(part.areas.size()) + " DMTCP areas (no end-of-areas record)");
    offset += dmtcp::kRecordSize;
    if (dmtcp::is_end_of_areas(entry.record)) {
      if (entry.record != dmtcp::encode_end_of_areas())
        throw ImageError(ImageErrorKind::corrupt, file, "corrupt DMTCP end-of-areas record");
      break;
    }
    entry.area = dmtcp::decode_area(entry.record);
    if (entry.area.end < entry.area.start || entry.area.end - entry.area.start != entry.area.size)
      throw ImageError(ImageErrorKind::corrupt, file,
                       "DMTCP area " + std::to_string(part.areas.size()) + " has size " +
                           std::to_string(entry.area.size) + " but spans " +
                           std::to_string(entry.area.end - entry.area.start) + " bytes");
    if (entry.area.stored_bytes > file_size - offset)
      throw ImageError(ImageErrorKind::truncated, file,
                       "truncated inside the data of DMTCP area " + std::to_string(part.areas.size()) + " ('" +
                           entry.area.name + "')");
    entry.data_offset = offset;
    offset += entry.area.stored_bytes;
    part.areas.push_back(std::move(entry));
  }
  if (offset == file_size)
    throw ImageError(ImageErrorKind::not_an_image, file,
                     "a DMTCP image without yadokari's records (yadokari restores only images it wrote)");
  part.records_offset = offset;
  return part;
}

}  // namespace yadokari::image
