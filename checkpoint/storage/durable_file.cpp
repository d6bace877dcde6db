#include "storage/durable_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "image/fd_io.hpp"
#include "image/image_error.hpp"
#include "storage/storage_error.hpp"

namespace yadokari::storage {
namespace fs = std::filesystem;

void write_file_durably(const fs::path& path, const std::string& text) {
  const std::string tmp = path.string() + ".tmp";
  // A .tmp left by a crash goes first; then the name must be new (O_EXCL) and never a symlink
  // (O_NOFOLLOW): whoever can write the directory cannot redirect this write to another file.
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw StorageError("cannot create " + tmp + ": " + std::strerror(errno));
  try {
    image::io::write_all_at(fd, 0, text.data(), text.size(), tmp);
    image::io::sync(fd, tmp);
  } catch (const image::ImageError& e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw StorageError(e.what());
  }
  if (::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    throw StorageError("cannot write " + path.string() + ": " + std::strerror(saved));
  }
  try {
    image::io::sync_directory(path.parent_path().string());
  } catch (const image::ImageError& e) {
    throw StorageError(e.what());
  }
}

}  // namespace yadokari::storage
