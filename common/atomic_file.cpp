#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.hpp"
#include "common/posix_io.hpp"

namespace yadokari {

void write_file_atomically_at(int directory_fd, const std::string& name, const std::filesystem::path& path,
                              const std::string& text, Durability durability, mode_t mode) {
  const std::string tmp_name = name + ".tmp";
  const std::string tmp = path.string() + ".tmp";
  ::unlinkat(directory_fd, tmp_name.c_str(), 0);  // a .tmp left by a crash
  const int fd = ::openat(directory_fd, tmp_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) throw IoError(tmp, "cannot create " + tmp + ": " + std::strerror(errno));
  // fchmod: the mode asked for, whatever the umask.
  int error = ::fchmod(fd, mode) == 0 ? 0 : errno;
  if (error == 0) error = posix::write_all_at(fd, 0, text.data(), text.size());
  if (error == 0 && durability == Durability::survives_crash && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlinkat(directory_fd, tmp_name.c_str(), 0);
    throw IoError(tmp, "cannot write " + tmp + ": " + std::strerror(error));
  }
  if (::renameat(directory_fd, tmp_name.c_str(), directory_fd, name.c_str()) != 0) {
    error = errno;
    ::unlinkat(directory_fd, tmp_name.c_str(), 0);
    throw IoError(path.string(), "cannot write " + path.string() + ": " + std::strerror(error));
  }
  if (durability != Durability::survives_crash) return;
  if (::fsync(directory_fd) != 0) {
    const std::string directory = path.has_parent_path() ? path.parent_path().string() : ".";
    throw IoError(directory, "cannot sync the directory " + directory + ": " + std::strerror(errno));
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
