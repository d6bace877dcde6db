#pragma once
// Whole-buffer reads and writes on file descriptors (common/posix_io.hpp) with failures turned into
// ImageError(io) naming the file (internal, also used by storage/).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace yadokari::image::io {

// The whole content of a regular file (posix::open_regular_file); ImageError(io) naming it otherwise.
std::string read_regular_file(const std::string& path);

// Reads up to `size` bytes at `offset`; returns fewer only at end of file.
std::size_t read_at(int fd, std::uint64_t offset, void* data, std::size_t size, const std::string& file);

// Writes all of `data` at `offset` (pwrite: the file position is left alone).
void write_all_at(int fd, std::uint64_t offset, const void* data, std::size_t size, const std::string& file);

std::uint64_t file_size(int fd, const std::string& file);

void sync(int fd, const std::string& file);

// fsync of a directory, so that a rename or unlink in it is durable.
void sync_directory(const std::string& directory);

// Sequential writer with a 1 MiB buffer: few system calls for many small pieces.
class BufferedOutput {
 public:
  BufferedOutput(int fd, std::string file);
  void write(const void* data, std::size_t size);
  void flush();
  // Overwrites bytes written earlier (a record whose lengths were unknown when it was written).
  void patch(std::uint64_t offset, const void* data, std::size_t size);
  std::uint64_t offset() const { return offset_; }  // bytes written so far, buffered ones included

 private:
  int fd_;
  std::string file_;
  std::vector<std::byte> buffer_;
  std::uint64_t flushed_ = 0;
  std::uint64_t offset_ = 0;
};

}  // namespace yadokari::image::io
