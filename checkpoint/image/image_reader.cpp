#include "checkpoint/image/image_reader.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "common/posix_io.hpp"
#include "checkpoint/image/byte_codec.hpp"
#include "checkpoint/image/dmtcp_part.hpp"
#include "checkpoint/image/fd_io.hpp"
#include "checkpoint/image/format.hpp"
#include "checkpoint/image/header_codec.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/payload_reader.hpp"
#include "checkpoint/image/record_codec.hpp"
#include "checkpoint/image/zero_pages.hpp"

namespace yadokari::image {
namespace {

using format::kPageSize;
using format::kRecordSize;

constexpr std::size_t kScratchSize = 1u << 20;

std::string area_label(const AreaRecord& area) {
  return "area '" + area.name + "' (#" + std::to_string(area.index) + ")";
}

// Any way an area's data fails to decode is, to the user, the same fact: its data is not what
// was written.
ImageError data_mismatch(const std::string& file, const AreaRecord& area) {
  return ImageError(ImageErrorKind::checksum_mismatch, file, "checksum mismatch in area '" + area.name + "'");
}

class Hasher {
 public:
  Hasher() : state_(XXH64_createState(), &XXH64_freeState) {
    if (!state_) throw std::bad_alloc();
    XXH64_reset(state_.get(), 0);
  }
  void add(const void* data, std::size_t size) { XXH64_update(state_.get(), data, size); }
  void add_zeros(std::uint64_t size) {
    while (size > 0) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(size, sizeof kZeroPage));
      add(kZeroPage, n);
      size -= n;
    }
  }
  std::uint64_t digest() const { return XXH64_digest(state_.get()); }

 private:
  std::unique_ptr<XXH64_state_t, decltype(&XXH64_freeState)> state_;
};

// The stored-page runs at the start of an elided area's data, checked for consistency with the
// record; false if they make no sense (a damaged run list).
bool read_run_list(int fd, const std::string& file, const AreaRecord& area, std::vector<PageRun>& runs,
                   std::uint64_t& list_size) {
  std::byte number[8];
  if (area.stored_length < sizeof number ||
      io::read_at(fd, area.data_offset, number, sizeof number, file) != sizeof number)
    return false;
  const auto count = codec::load<std::uint64_t>(number);
  if (count > area.pages() || count > (area.stored_length - sizeof number) / format::kRunSize) return false;
  list_size = sizeof number + count * format::kRunSize;
  std::vector<std::byte> bytes(count * format::kRunSize);
  if (io::read_at(fd, area.data_offset + sizeof number, bytes.data(), bytes.size(), file) != bytes.size()) return false;
  std::uint64_t next_free = 0;
  std::uint64_t stored_pages = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    PageRun run{codec::load<std::uint64_t>(bytes.data() + i * 16),
                codec::load<std::uint64_t>(bytes.data() + i * 16 + 8)};
    if (run.count == 0 || run.first < next_free || run.first > area.pages() || run.count > area.pages() - run.first)
      return false;
    next_free = run.first + run.count;
    stored_pages += run.count;
    runs.push_back(run);
  }
  return stored_pages + area.zero_pages == area.pages();
}

}  // namespace

bool holds_yadokari_records(const std::string& path) {
  std::string why;
  const int fd = posix::open_regular_file(path, why);
  if (fd < 0) return false;
  bool holds = false;
  try {
    holds = starts_with_dmtcp_signature(fd, path) && (read_dmtcp_part(fd, io::file_size(fd, path), path), true);
  } catch (const ImageError&) {
    holds = false;
  }
  ::close(fd);
  return holds;
}

ImageReader::ImageReader(std::string path) : path_(std::move(path)) {
  std::string why;
  fd_ = posix::open_regular_file(path_, why);
  if (fd_ < 0) throw ImageError(ImageErrorKind::io, path_, "cannot open: " + why);
  try {
    file_size_ = io::file_size(fd_, path_);
    if (starts_with_dmtcp_signature(fd_, path_)) {
      dmtcp_ = std::make_unique<DmtcpPart>(read_dmtcp_part(fd_, file_size_, path_));
      header_offset_ = dmtcp_->records_offset;
    }
    std::byte prefix[format::kPrefixSize];
    const std::size_t got = io::read_at(fd_, header_offset_, prefix, sizeof prefix, path_);
    try {
      header_length_ = codec::check_prefix(prefix, got, file_size_ - header_offset_, path_);
    } catch (const ImageError& e) {
      if (!dmtcp_ || e.kind() != ImageErrorKind::not_an_image) throw;
      throw ImageError(ImageErrorKind::corrupt, path_, "corrupt image: no yadokari header after the DMTCP part");
    }
    std::vector<std::byte> bytes(header_length_);
    if (io::read_at(fd_, header_offset_, bytes.data(), bytes.size(), path_) != bytes.size())
      throw ImageError(ImageErrorKind::truncated, path_, "truncated inside the header");
    header_ = codec::decode_header(bytes.data(), bytes.size(), path_);
    header_checksum_ = codec::stored_header_checksum(bytes.data(), bytes.size());
    read_records();
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

ImageReader::ImageReader(ImageReader&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(other.fd_),
      dmtcp_(std::move(other.dmtcp_)),
      header_offset_(other.header_offset_),
      file_size_(other.file_size_),
      header_(std::move(other.header_)),
      header_checksum_(other.header_checksum_),
      header_length_(other.header_length_),
      areas_(std::move(other.areas_)),
      dmtcp_area_of_(std::move(other.dmtcp_area_of_)) {
  other.fd_ = -1;
}

ImageReader::~ImageReader() {
  if (fd_ >= 0) ::close(fd_);
}

void ImageReader::read_records() {
  std::uint64_t offset = header_offset_ + header_length_;
  std::size_t dmtcp_areas = 0;  // DMTCP area records claimed so far
  for (std::uint32_t position = 0;; ++position) {
    if (file_size_ - offset < kRecordSize) {
      std::string where;
      if (offset != file_size_)
        where = "inside record #" + std::to_string(position);
      else if (areas_.empty())
        where = "after the header (no end record)";
      else
        where = "after " + area_label(areas_.back()) + " (no end record)";
      throw ImageError(ImageErrorKind::truncated, path_, "truncated " + where);
    }
    codec::RecordBytes bytes;
    io::read_at(fd_, offset, bytes.data(), bytes.size(), path_);
    const auto record = codec::decode_record(bytes, position, path_);
    offset += kRecordSize;

    if (record.is_end) {
      if (record.header_checksum != header_checksum_)
        throw ImageError(ImageErrorKind::checksum_mismatch, path_,
                         "checksum mismatch in the end record (it belongs to another header)");
      if (record.area_count != areas_.size())
        throw ImageError(ImageErrorKind::corrupt, path_,
                         "corrupt image: the end record counts " + std::to_string(record.area_count) +
                             " areas but the image has " + std::to_string(areas_.size()));
      if (offset != file_size_)
        throw ImageError(ImageErrorKind::corrupt, path_,
                         "corrupt image: " + std::to_string(file_size_ - offset) + " bytes after the end record");
      if (dmtcp_ && dmtcp_areas != dmtcp_->areas.size())
        throw ImageError(ImageErrorKind::corrupt, path_,
                         "corrupt image: the DMTCP part has " + std::to_string(dmtcp_->areas.size()) +
                             " areas but the records name " + std::to_string(dmtcp_areas));
      return;
    }

    AreaRecord area = record.area;
    if (area.in_dmtcp_part()) {
      claim_dmtcp_area(area, position, dmtcp_areas++);
      area.index = position;
      area.record_offset = offset - kRecordSize;
      areas_.push_back(std::move(area));
      continue;
    }
    if (area.delta() && !header_.increment())
      throw ImageError(ImageErrorKind::corrupt, path_,
                       "corrupt record #" + std::to_string(position) + ": a delta area in a full image");
    area.index = position;
    area.record_offset = offset - kRecordSize;
    area.data_offset = offset;
    if (area.stored_length > file_size_ - offset)
      throw ImageError(ImageErrorKind::truncated, path_, "truncated inside the data of " + area_label(area));
    offset += area.stored_length;
    areas_.push_back(std::move(area));
  }
}

// The N-th record of an area in the DMTCP part is the N-th DMTCP mapping, byte for byte what the
// writer encodes from it, and so is each of its runs but for the run's place, which the DMTCP part
// checked (DMTCP's records carry no checksum: this makes every bit of them checked).
void ImageReader::claim_dmtcp_area(AreaRecord& area, std::uint32_t position, std::size_t number) {
  const auto where = "corrupt image: record #" + std::to_string(position) + " ('" + area.name + "')";
  if (!dmtcp_) throw ImageError(ImageErrorKind::corrupt, path_, where + " is in a DMTCP part, but the image has none");
  if (number >= dmtcp_->areas.size())
    throw ImageError(ImageErrorKind::corrupt, path_,
                     where + " is DMTCP area " + std::to_string(number) + ", but the DMTCP part has " +
                         std::to_string(dmtcp_->areas.size()));
  const DmtcpPartArea& stored = dmtcp_->areas[number];
  const auto mismatch = [&] {
    return ImageError(ImageErrorKind::corrupt, path_, where + " does not match DMTCP area " + std::to_string(number));
  };
  const std::uint64_t properties = stored.runs.empty() ? 0 : dmtcp::kParent;
  if (stored.record != dmtcp::encode_area(area.address, area.length, area.protection, area.name, properties))
    throw mismatch();
  area.data_offset = stored.data_offset;
  area.stored_length = stored.runs.empty() ? area.length : 0;
  area.zero_pages = 0;
  for (const DmtcpPartRun& run : stored.runs) {
    const std::uint64_t kind = dmtcp::kChild | (run.area.zero() ? dmtcp::kZeroPages : 0);
    if (run.record != dmtcp::encode_area(run.area.start, run.area.size, area.protection, area.name, kind))
      throw mismatch();
    if (run.area.zero())
      area.zero_pages += page_count(run.area.size);
    else
      area.stored_length += run.area.size;
  }
  if (!stored.runs.empty()) area.data_offset = stored.runs.front().data_offset;
  dmtcp_area_of_.resize(position + 1, 0);
  dmtcp_area_of_[position] = number;
}

const AreaRecord* ImageReader::find(const std::string& name) const {
  for (const auto& area : areas_)
    if (area.name == name) return &area;
  return nullptr;
}

void ImageReader::read_area(std::size_t index, std::span<std::byte> out, bool zero_fill) const {
  const AreaRecord& area = areas_.at(index);
  if (area.delta())
    throw ImageError(ImageErrorKind::usage, path_,
                     "area '" + area.name + "' is a delta against epoch " + std::to_string(header_.parent->epoch) +
                         ": it is read through its chain of images");
  if (out.size() != area.length)
    throw ImageError(
        ImageErrorKind::usage, path_,
        "area '" + area.name + "' has " + std::to_string(area.length) + " bytes, not " + std::to_string(out.size()));
  walk(area, out.data(), zero_fill);
}

std::vector<std::byte> ImageReader::read_area(std::size_t index) const {
  std::vector<std::byte> data(areas_.at(index).delta() ? 0 : areas_.at(index).length);
  read_area(index, data, false);  // a fresh vector is already zero
  return data;
}

void ImageReader::verify() const {
  for (const auto& area : areas_) walk(area, nullptr, false);
}

DeltaHeader ImageReader::delta_header(std::size_t index) const {
  const AreaRecord& area = areas_.at(index);
  DeltaHeader delta;
  std::uint64_t size = 0;
  if (!area.delta() || !read_delta_header(fd_, path_, area, delta, size)) throw data_mismatch(path_, area);
  return delta;
}

std::uint64_t ImageReader::apply_delta(std::size_t index, std::span<std::byte> out) const {
  const AreaRecord& area = areas_.at(index);
  if (!area.delta()) throw ImageError(ImageErrorKind::usage, path_, "area '" + area.name + "' is not a delta");
  return walk_delta(area, out.data(), out.size()).full_checksum;
}

DeltaHeader ImageReader::walk_delta(const AreaRecord& area, std::byte* out, std::size_t out_size) const {
  DeltaHeader delta;
  std::uint64_t header_size = 0;
  if (!read_delta_header(fd_, path_, area, delta, header_size)) throw data_mismatch(path_, area);
  Hasher hash;
  const auto header_bytes = encode_delta_header(delta);
  hash.add(header_bytes.data(), header_bytes.size());
  if (out) {
    const std::uint64_t from = first_page_past_parent(delta.parent_length) * kPageSize;
    const std::uint64_t to = std::min<std::uint64_t>(area.length, out_size);
    if (from < to) std::memset(out + from, 0, to - from);
  }
  PayloadReader payload(fd_, path_, area.data_offset + header_size, area.stored_length - header_size, area.compressed(),
                        area.shuffled());
  // Verifying reads in large pieces; pages past the end of `out` one at a time.
  std::vector<std::byte> scratch(out ? kPageSize : kScratchSize);
  for (const auto& run : delta.runs) {
    const std::uint64_t start = run.first * kPageSize;
    const std::uint64_t bytes = run_bytes(run, area.length);
    if (out && start + bytes <= out_size) {  // the common case: straight into place
      if (!payload.read(out + start, static_cast<std::size_t>(bytes))) throw data_mismatch(path_, area);
      hash.add(out + start, static_cast<std::size_t>(bytes));
      continue;
    }
    // Verifying only, or pages past the end of `out` (the area shrank in a later link).
    for (std::uint64_t at = start; at < start + bytes; at += scratch.size()) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(scratch.size(), start + bytes - at));
      if (!payload.read(scratch.data(), n)) throw data_mismatch(path_, area);
      hash.add(scratch.data(), n);
      if (out && at < out_size) std::memcpy(out + at, scratch.data(), std::min<std::uint64_t>(n, out_size - at));
    }
  }
  if (!payload.finished() || hash.digest() != area.checksum) throw data_mismatch(path_, area);
  return delta;
}

// An area of the DMTCP part: its bytes raw after its record, or its runs' bytes after theirs.
void ImageReader::walk_dmtcp(const AreaRecord& area, std::byte* out, bool zero_fill) const {
  const DmtcpPartArea& stored = dmtcp_->areas.at(dmtcp_area_of_.at(area.index));
  std::vector<DmtcpPartRun> runs = stored.runs;
  if (runs.empty()) runs.push_back({stored.record, stored.area, stored.data_offset});
  std::vector<std::byte> scratch(out ? 0 : std::min<std::uint64_t>(kScratchSize, area.length));
  Hasher hash;
  for (const DmtcpPartRun& run : runs) {
    const std::uint64_t begin = run.area.start - area.address;
    if (run.area.zero()) {
      if (out && zero_fill) std::memset(out + begin, 0, run.area.size);
      hash.add_zeros(run.area.size);
      continue;
    }
    for (std::uint64_t done = 0; done < run.area.size;) {
      const std::size_t n = static_cast<std::size_t>(
          out ? run.area.size - done : std::min<std::uint64_t>(run.area.size - done, scratch.size()));
      std::byte* target = out ? out + begin + done : scratch.data();
      if (io::read_at(fd_, run.data_offset + done, target, n, path_) != n) throw data_mismatch(path_, area);
      hash.add(target, n);
      done += n;
    }
  }
  if (hash.digest() != area.checksum) throw data_mismatch(path_, area);
}

void ImageReader::walk(const AreaRecord& area, std::byte* out, bool zero_fill) const {
  if (area.delta()) {
    walk_delta(area, nullptr, 0);
    return;
  }
  if (area.in_dmtcp_part()) {
    walk_dmtcp(area, out, zero_fill);
    return;
  }
  std::vector<PageRun> runs;
  std::uint64_t list_size = 0;
  if (area.zero_pages_elided()) {
    if (!read_run_list(fd_, path_, area, runs, list_size)) throw data_mismatch(path_, area);
  } else {
    runs = all_pages(area.length);
  }

  PayloadReader payload(fd_, path_, area.data_offset + list_size, area.stored_length - list_size, area.compressed(),
                        area.shuffled());
  std::vector<std::byte> scratch(out ? 0 : std::min<std::uint64_t>(kScratchSize, area.length));
  Hasher hash;
  std::uint64_t position = 0;  // bytes of the area produced so far
  auto zeros_until = [&](std::uint64_t end) {
    if (out && zero_fill) std::memset(out + position, 0, end - position);
    hash.add_zeros(end - position);
    position = end;
  };
  for (const auto& run : runs) {
    zeros_until(run.first * kPageSize);
    const std::uint64_t end = position + run_bytes(run, area.length);
    while (position < end) {
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(end - position, out ? end - position : scratch.size()));
      std::byte* target = out ? out + position : scratch.data();
      if (!payload.read(target, n)) throw data_mismatch(path_, area);
      hash.add(target, n);
      position += n;
    }
  }
  zeros_until(area.length);
  if (!payload.finished() || hash.digest() != area.checksum) throw data_mismatch(path_, area);
}

}  // namespace yadokari::image
