#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "common/atomic_file_stream.hpp"
#include "common/error.hpp"
#include "common/posix_io.hpp"

namespace yadokari {

void write_file_atomically_at(int directory_fd, const std::string& name, const std::filesystem::path& path,
                              const std::string& text, Durability durability, mode_t mode) {
  const std::string tmp = path.string() + ".tmp";
  AtomicFileStream file;
  if (const int error = file.create(directory_fd, name.c_str(), O_WRONLY, mode); error != 0)
    throw IoError(tmp, "cannot create " + tmp + ": " + std::strerror(error));
  if (const int error = posix::write_all_at(file.fd(), 0, text.data(), text.size()); error != 0)
    throw IoError(tmp, "cannot write " + tmp + ": " + std::strerror(error));
  const int error = file.commit(durability);
  switch (file.failed_step()) {
    case AtomicFileStream::Step::none:
      return;
    case AtomicFileStream::Step::sync_file:
    case AtomicFileStream::Step::close_file:
      throw IoError(tmp, "cannot write " + tmp + ": " + std::strerror(error));
    case AtomicFileStream::Step::rename:
      throw IoError(path.string(), "cannot write " + path.string() + ": " + std::strerror(error));
    case AtomicFileStream::Step::sync_directory: {
      const std::string directory = path.has_parent_path() ? path.parent_path().string() : ".";
      throw IoError(directory, "cannot sync the directory " + directory + ": " + std::strerror(error));
    }
  }
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text, Durability durability,
                           mode_t mode) {
  const std::string directory = path.has_parent_path() ? path.parent_path().string() : ".";
  std::string why;
  const int directory_fd = posix::open_directory(directory, posix::LastLink::follow, why);
  if (directory_fd < 0) throw IoError(path.string(), "cannot create " + path.string() + ".tmp: " + why);
  try {
    write_file_atomically_at(directory_fd, path.filename().string(), path, text, durability, mode);
  } catch (...) {
    ::close(directory_fd);
    throw;
  }
  ::close(directory_fd);
}

}  // namespace yadokari
