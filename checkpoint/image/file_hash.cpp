#include "checkpoint/image/file_hash.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <vector>

#include "common/posix_io.hpp"
#include "checkpoint/image/fd_io.hpp"
#include "checkpoint/image/image_error.hpp"

namespace yadokari::image {

std::uint64_t xxh64_of_fd(int fd, const std::string& file) {
  std::unique_ptr<XXH64_state_t, decltype(&XXH64_freeState)> state(XXH64_createState(), &XXH64_freeState);
  if (!state) throw ImageError(ImageErrorKind::io, file, "out of memory while hashing");
  XXH64_reset(state.get(), 0);
  std::vector<std::byte> buffer(1u << 20);
  std::uint64_t offset = 0;
  for (;;) {
    const std::size_t got = io::read_at(fd, offset, buffer.data(), buffer.size(), file);
    if (got == 0) break;
    XXH64_update(state.get(), buffer.data(), got);
    offset += got;
  }
  return XXH64_digest(state.get());
}

std::uint64_t xxh64_of_file(const std::string& path) {
  std::string why;
  const int fd = posix::open_regular_file(path, why);
  if (fd < 0) throw ImageError(ImageErrorKind::io, path, "cannot open: " + why);
  try {
    const std::uint64_t hash = xxh64_of_fd(fd, path);
    ::close(fd);
    return hash;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

std::string hex64(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string hex_bytes(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(bytes.size() * 2);
  for (const unsigned char byte : bytes) {
    text += kDigits[byte >> 4];
    text += kDigits[byte & 15];
  }
  return text;
}

}  // namespace yadokari::image
