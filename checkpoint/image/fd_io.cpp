#include "image/fd_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "image/image_error.hpp"

namespace yadokari::image::io {

int open_regular_file(const std::string& path, std::string& why) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    why = std::strerror(errno);
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    why = "not a regular file";
    ::close(fd);
    return -1;
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

std::string read_regular_file(const std::string& path) {
  std::string why;
  const int fd = open_regular_file(path, why);
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
  auto* out = static_cast<char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw io_error(file, "reading", errno);
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

void write_all_at(int fd, std::uint64_t offset, const void* data, std::size_t size, const std::string& file) {
  const auto* in = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pwrite(fd, in + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw io_error(file, "writing", errno);
    }
    done += static_cast<std::size_t>(n);
  }
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
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw io_error(directory, "opening the directory", errno);
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  if (rc != 0) throw io_error(directory, "syncing the directory", saved);
}

std::string parent_directory(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
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
