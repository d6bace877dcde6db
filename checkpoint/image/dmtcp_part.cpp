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
  std::uint64_t covered = 0;  // bytes of the last parent its runs cover so far
  auto name_of = [](const DmtcpPartArea& area, std::size_t number) {
    return "DMTCP area " + std::to_string(number) + " ('" + area.area.name + "')";
  };
  // A parent's runs end where the next mapping's record or the end-of-areas record begins.
  auto check_runs_complete = [&] {
    if (part.areas.empty() || !part.areas.back().area.parent() || covered == part.areas.back().area.size) return;
    throw ImageError(ImageErrorKind::corrupt, file,
                     name_of(part.areas.back(), part.areas.size() - 1) + ": its runs cover " + std::to_string(covered) +
                         " of its " + std::to_string(part.areas.back().area.size) + " bytes");
  };
  for (;;) {
    dmtcp::Record record{};
    if (!read_record(fd, offset, record, file))
      throw ImageError(
          ImageErrorKind::truncated, file,
          "truncated after " + std::to_string(part.areas.size()) + " DMTCP areas (no end-of-areas record)");
    const std::uint64_t record_offset = offset;
    offset += dmtcp::kRecordSize;
    if (dmtcp::is_end_of_areas(record)) {
      if (record != dmtcp::encode_end_of_areas())
        throw ImageError(ImageErrorKind::corrupt, file, "corrupt DMTCP end-of-areas record");
      check_runs_complete();
      break;
    }
    const dmtcp::Area area = dmtcp::decode_area(record);
    // A run is numbered with its parent: the area the reader and its errors speak of.
    const std::size_t number = area.child() && !part.areas.empty() ? part.areas.size() - 1 : part.areas.size();
    if (area.end < area.start || area.end - area.start != area.size)
      throw ImageError(ImageErrorKind::corrupt, file,
                       "DMTCP area " + std::to_string(number) + " has size " + std::to_string(area.size) +
                           " but spans " + std::to_string(area.end - area.start) + " bytes");
    if (area.stored_bytes > file_size - offset)
      throw ImageError(ImageErrorKind::truncated, file,
                       "truncated inside the data of DMTCP area " + std::to_string(number) + " ('" + area.name + "')");
    if (area.child()) {
      if (part.areas.empty() || !part.areas.back().area.parent() || covered == part.areas.back().area.size)
        throw ImageError(
            ImageErrorKind::corrupt, file,
            "the DMTCP run record at offset " + std::to_string(record_offset) + " belongs to no parent record");
      DmtcpPartArea& parent = part.areas.back();
      if (area.start != parent.area.start + covered || area.size > parent.area.size - covered)
        throw ImageError(
            ImageErrorKind::corrupt, file,
            name_of(parent, number) + ": run " + std::to_string(parent.runs.size()) + " does not continue its runs");
      covered += area.size;
      parent.runs.push_back({record, area, offset});
    } else {
      check_runs_complete();
      covered = 0;
      part.areas.push_back({record, area, offset, {}});
    }
    offset += area.stored_bytes;
  }
  if (offset == file_size)
    throw ImageError(ImageErrorKind::not_an_image, file,
                     "a DMTCP image without yadokari's records (yadokari restores only images it wrote)");
  part.records_offset = offset;
  return part;
}

}  // namespace yadokari::image
