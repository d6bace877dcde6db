#include "checkpoint/image/fd_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/posix_io.hpp"
#include "checkpoint/image/image_error.hpp"

namespace yadokari::image::io {

std::string read_regular_file(const std::string& path) {
  std::string why;
  const int fd = posix::open_regular_file(path, why);
  if (fd < 0) throw ImageError(ImageErrorKind::io, path, "cannot open: " + why);
  try {
    std::string text(file_size(fd, path), '\0');
    text.resize(read_at(fd, 0, text.data(), text.size(), path));
    ::close(fd);
    return text;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

namespace {

constexpr std::size_t kBufferSize = 1u << 20;

}  // namespace

std::size_t read_at(int fd, std::uint64_t offset, void* data, std::size_t size, const std::string& file) {
  std::size_t done = 0;
  if (const int error = posix::read_at(fd, offset, data, size, done); error != 0)
    throw io_error(file, "reading", error);
  return done;
}

void write_all_at(int fd, std::uint64_t offset, const void* data, std::size_t size, const std::string& file) {
  if (const int error = posix::write_all_at(fd, offset, data, size); error != 0) throw io_error(file, "writing", error);
}

std::uint64_t file_size(int fd, const std::string& file) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw io_error(file, "reading its size", errno);
  return static_cast<std::uint64_t>(st.st_size);
}

void sync(int fd, const std::string& file) {
  if (::fsync(fd) != 0) throw io_error(file, "syncing to disk", errno);
}

void sync_directory(const std::string& directory) {
  if (const int error = posix::sync_directory(directory); error != 0)
    throw io_error(directory, "syncing the directory", error);
}

BufferedOutput::BufferedOutput(int fd, std::string file) : fd_(fd), file_(std::move(file)) {
  buffer_.reserve(kBufferSize);
}

void BufferedOutput::write(const void* data, std::size_t size) {
  const auto* in = static_cast<const std::byte*>(data);
  offset_ += size;
  // Large pieces go straight to the file instead of through the buffer.
  if (size >= kBufferSize) {
    flush();
    write_all_at(fd_, flushed_, in, size, file_);
    flushed_ += size;
    return;
  }
  if (buffer_.size() + size > kBufferSize) flush();
  buffer_.insert(buffer_.end(), in, in + size);
}

void BufferedOutput::flush() {
  if (buffer_.empty()) return;
  write_all_at(fd_, flushed_, buffer_.data(), buffer_.size(), file_);
  flushed_ += buffer_.size();
  buffer_.clear();
}

void BufferedOutput::patch(std::uint64_t offset, const void* data, std::size_t size) {
  if (offset >= flushed_ && offset + size <= offset_) {
    std::memcpy(buffer_.data() + (offset - flushed_), data, size);
    return;
  }
  flush();
  write_all_at(fd_, offset, data, size, file_);
}

}  // namespace yadokari::image::io
