#include "checkpoint/image/image_writer.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <limits>
#include <new>

#include "common/posix_io.hpp"
#include "checkpoint/image/file_hash.hpp"
#include "checkpoint/image/delta_area.hpp"
#include "checkpoint/image/dmtcp_layout.hpp"
#include "checkpoint/image/dmtcp_runs.hpp"
#include "checkpoint/image/header_codec.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/record_codec.hpp"
#include "checkpoint/image/zero_pages.hpp"

namespace yadokari::image {
namespace {

std::int64_t now_unix_ns() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// DMTCP's process header for this rank: the program is the executable, as DMTCP names it.
dmtcp::Record dmtcp_process_header(const ImageHeader& header) {
  dmtcp::Process process;
  if (!header.binaries.empty()) {
    process.executable = header.binaries.front().path;
    process.program = process.executable.substr(process.executable.find_last_of('/') + 1);
  }
  process.pid = static_cast<std::int32_t>(::getpid());
  process.ppid = static_cast<std::int32_t>(::getppid());
  process.peers = header.world_size;
  return dmtcp::encode_process(process);
}

}  // namespace

ImageWriter::ImageWriter(std::string path, ImageHeader header, WriterOptions options)
    : path_(std::move(path)), tmp_path_(path_ + ".tmp"), options_(options) {
  const auto slash = path_.find_last_of('/');
  const std::string name = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  if (header.created_unix_ns == 0) header.created_unix_ns = now_unix_ns();
  const auto bytes = codec::encode_header(header, path_);
  header_checksum_ = codec::stored_header_checksum(bytes.data(), bytes.size());
  if (header.parent) parent_epoch_ = header.parent->epoch;

  // O_RDWR: finish() reads the file back to hash it. A temporary left by an earlier attempt goes
  // first; then the name must be new and never a symlink (O_EXCL|O_NOFOLLOW), so a rank (root,
  // often) cannot be made to write its image over another file.
  std::string why;
  directory_fd_ = posix::open_directory(posix::parent_directory(path_), posix::LastLink::refuse, why);
  if (directory_fd_ < 0 && errno == ELOOP)
    throw ImageError(ImageErrorKind::io, path_, "its directory " + posix::parent_directory(path_) + " is a symlink");
  if (directory_fd_ < 0) throw io_error(path_, "creating " + tmp_path_, errno);
  if (const int error = file_.create(directory_fd_, name.c_str(), O_RDWR, 0600); error != 0) {
    close_directory();
    throw io_error(path_, "creating " + tmp_path_, error);
  }
  try {
    if (options_.layout == ImageLayout::dmtcp) {
      if (header.parent)
        throw ImageError(ImageErrorKind::usage, path_, "an increment cannot be written in DMTCP's layout");
      // DMTCP writes its process header twice: dmtcp_restart reads one copy, mtcp_restart the other.
      memory_out_ = std::make_unique<io::BufferedOutput>(file_.fd(), path_);
      const auto process = dmtcp_process_header(header);
      memory_out_->write(process.data(), process.size());
      memory_out_->write(process.data(), process.size());
      records_fd_ = ::memfd_create("yadokari-image-records", MFD_CLOEXEC);
      if (records_fd_ < 0) throw io_error(path_, "creating the spool of its records", errno);
      out_ = std::make_unique<io::BufferedOutput>(records_fd_, path_);
    } else {
      out_ = std::make_unique<io::BufferedOutput>(file_.fd(), path_);
    }
    payload_ = std::make_unique<PayloadWriter>(options_.compression_level, path_);
    out_->write(bytes.data(), bytes.size());
  } catch (...) {
    abandon();
    throw;
  }
}

ImageWriter::~ImageWriter() { abandon(); }

void ImageWriter::abandon() noexcept {
  file_.abandon();
  close_directory();
  if (records_fd_ >= 0) ::close(records_fd_);
  records_fd_ = -1;
  done_ = true;
}

void ImageWriter::close_directory() noexcept {
  if (directory_fd_ >= 0) ::close(directory_fd_);
  directory_fd_ = -1;
}

void ImageWriter::hand_over() noexcept {
  file_.hand_over();
  close_directory();
  if (records_fd_ >= 0) ::close(records_fd_);  // the spool stays open in the other process
  records_fd_ = -1;
  done_ = true;
}

void ImageWriter::check_usable() const {
  if (done_) throw ImageError(ImageErrorKind::usage, path_, "the image writer is already finished");
}

void ImageWriter::check_area(const AreaInfo& info, const void* data, std::size_t length) const {
  check_usable();
  if (info.name.size() > format::kMaxNameLength || info.name.find('\0') != std::string::npos)
    throw ImageError(ImageErrorKind::usage, path_,
                     "area name '" + info.name + "' is longer than 64 bytes or contains a NUL byte");
  if (length != 0 && data == nullptr)
    throw ImageError(ImageErrorKind::usage, path_, "area '" + info.name + "' has no data");
}

void ImageWriter::add_delta_area(const AreaInfo& info, const void* data, std::size_t length,
                                 std::span<const PageRun> written, std::uint64_t parent_length) {
  check_area(info, data, length);
  if (parent_epoch_ == 0)
    throw ImageError(
        ImageErrorKind::usage, path_,
        "area '" + info.name + "' is a delta, but the image is not an increment (no parent in its header)");
  try {
    write_delta_area(info, static_cast<const std::byte*>(data), length, written, parent_length);
  } catch (...) {
    abandon();
    throw;
  }
}

void ImageWriter::write_delta_area(const AreaInfo& info, const std::byte* data, std::uint64_t length,
                                   std::span<const PageRun> written, std::uint64_t parent_length) {
  DeltaHeader delta;
  delta.full_checksum = XXH64(data, length, 0);
  delta.parent_length = parent_length;
  delta.runs = delta_runs(data, length, written, parent_length);
  const auto header = encode_delta_header(delta);

  // The record's checksum covers the delta header and the stored pages: the increment verifies
  // on its own, without its parent.
  XXH64_state_t* state = XXH64_createState();
  if (!state) throw std::bad_alloc();
  XXH64_reset(state, 0);
  XXH64_update(state, header.data(), header.size());
  for (const auto& run : delta.runs) XXH64_update(state, data + run.first * format::kPageSize, run_bytes(run, length));
  AreaRecord record;
  record.checksum = XXH64_digest(state);
  XXH64_freeState(state);
  record.kind = info.kind;
  record.name = info.name;
  record.address = info.address;
  record.length = length;
  record.protection = info.protection;
  record.flags = format::kFlagDelta;

  const std::uint64_t record_offset = out_->offset();
  const codec::RecordBytes placeholder{};
  out_->write(placeholder.data(), placeholder.size());
  out_->write(header.data(), header.size());
  const auto payload = payload_->write(*out_, data, length, delta.runs, false);
  record.stored_length = header.size() + payload.stored_length;
  if (payload.compressed) record.flags |= format::kFlagCompressed;
  if (payload.shuffled) record.flags |= format::kFlagShuffled;
  const auto bytes = codec::encode_area_record(record);
  out_->patch(record_offset, bytes.data(), bytes.size());
  ++areas_;
}

void ImageWriter::add_area(const AreaInfo& info, const void* data, std::size_t length) {
  check_area(info, data, length);
  try {
    write_area(info, static_cast<const std::byte*>(data), length);
  } catch (...) {
    abandon();
    throw;
  }
}

// An area with long zero stretches is written as DMTCP writes anonymous memory: a parent record,
// then a child record per run, only the data runs followed by their bytes; any other area as one
// record followed by all its bytes.
void ImageWriter::write_dmtcp_area(const AreaInfo& info, const std::byte* data, std::uint64_t length) {
  AreaRecord record;
  record.kind = info.kind;
  record.name = info.name;
  record.address = info.address;
  record.length = length;
  record.protection = info.protection;
  record.checksum = XXH64(data, length, 0);
  record.flags = format::kFlagInDmtcpPart;
  const auto runs = dmtcp_runs(data, length);
  const auto area =
      dmtcp::encode_area(info.address, length, info.protection, info.name, runs.empty() ? 0 : dmtcp::kParent);
  memory_out_->write(area.data(), area.size());
  if (runs.empty()) memory_out_->write(data, length);
  for (const DmtcpRun& run : runs) {
    const auto child = dmtcp::encode_area(info.address + run.offset, run.bytes, info.protection, info.name,
                                          dmtcp::kChild | (run.zero ? dmtcp::kZeroPages : 0));
    memory_out_->write(child.data(), child.size());
    if (!run.zero) memory_out_->write(data + run.offset, run.bytes);
  }
  const auto bytes = codec::encode_area_record(record);
  out_->write(bytes.data(), bytes.size());
  ++areas_;
}

// DMTCP's end-of-areas record, then the spooled header and records (DMTCP's readers stop before them).
void ImageWriter::append_records() {
  const auto end = dmtcp::encode_end_of_areas();
  memory_out_->write(end.data(), end.size());
  out_->flush();
  std::vector<std::byte> chunk(1u << 20);
  for (std::uint64_t at = 0; at < out_->offset();) {
    const std::size_t got = io::read_at(records_fd_, at, chunk.data(), chunk.size(), path_);
    if (got == 0) throw ImageError(ImageErrorKind::io, path_, "its spooled records ended early");
    memory_out_->write(chunk.data(), got);
    at += got;
  }
  memory_out_->flush();
}

void ImageWriter::write_area(const AreaInfo& info, const std::byte* data, std::uint64_t length) {
  if (memory_out_ && info.address != 0) {
    write_dmtcp_area(info, data, length);
    return;
  }
  const auto runs = options_.elide_zero_pages ? stored_page_runs(data, length) : all_pages(length);
  std::uint64_t stored_pages = 0;
  for (const auto& run : runs) stored_pages += run.count;

  AreaRecord record;
  record.kind = info.kind;
  record.name = info.name;
  record.address = info.address;
  record.length = length;
  record.protection = info.protection;
  record.zero_pages = page_count(length) - stored_pages;
  record.checksum = XXH64(data, length, 0);
  if (record.zero_pages != 0) record.flags |= format::kFlagZeroPagesElided;

  // Stored length and compression are known only once the payload is written, so the record
  // is patched afterwards.
  const std::uint64_t record_offset = out_->offset();
  const codec::RecordBytes placeholder{};
  out_->write(placeholder.data(), placeholder.size());
  const auto payload = payload_->write(*out_, data, length, runs, record.zero_pages != 0);
  record.stored_length = payload.stored_length;
  if (payload.compressed) record.flags |= format::kFlagCompressed;
  if (payload.shuffled) record.flags |= format::kFlagShuffled;
  const auto bytes = codec::encode_area_record(record);
  out_->patch(record_offset, bytes.data(), bytes.size());
  ++areas_;
}

WrittenImage ImageWriter::finish() {
  check_usable();
  WrittenImage written;
  try {
    const auto end = codec::encode_end_record(areas_, header_checksum_);
    out_->write(end.data(), end.size());
    if (memory_out_) append_records();
    io::BufferedOutput& file = memory_out_ ? *memory_out_ : *out_;
    file.flush();
    written = {path_, file.offset(), xxh64_of_fd(file_.fd(), path_), areas_, parent_epoch_, options_.layout};
    const int error = file_.commit(Durability::survives_crash);
    switch (file_.failed_step()) {
      case AtomicFileStream::Step::none:
        break;
      case AtomicFileStream::Step::sync_file:
        throw io_error(path_, "syncing to disk", error);
      case AtomicFileStream::Step::close_file:
        throw io_error(path_, "closing " + tmp_path_, error);
      case AtomicFileStream::Step::rename:
        throw io_error(path_, "renaming " + tmp_path_ + " to it", error);
      case AtomicFileStream::Step::sync_directory:
        done_ = true;  // renamed: the image is there, only not known durable
        throw io_error(path_, "syncing its directory", error);
    }
    done_ = true;
    close_directory();
    if (records_fd_ >= 0) ::close(records_fd_);
    records_fd_ = -1;
  } catch (...) {
    abandon();
    throw;
  }
  return written;
}

}  // namespace yadokari::image
