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

void write_file_atomically(const std::filesystem::path& path, const std::string& text, Durability durability,
                           mode_t mode) {
  const std::string tmp = path.string() + ".tmp";
  ::unlink(tmp.c_str());  // a .tmp left by a crash
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) throw IoError(tmp, "cannot create " + tmp + ": " + std::strerror(errno));
  // fchmod: the mode asked for, whatever the umask.
  int error = ::fchmod(fd, mode) == 0 ? 0 : errno;
  if (error == 0) error = posix::write_all_at(fd, 0, text.data(), text.size());
  if (error == 0 && durability == Durability::survives_crash && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(tmp.c_str());
    throw IoError(tmp, "cannot write " + tmp + ": " + std::strerror(error));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = errno;
    ::unlink(tmp.c_str());
    throw IoError(path.string(), "cannot write " + path.string() + ": " + std::strerror(error));
  }
  if (durability != Durability::survives_crash) return;
  const std::string directory = path.has_parent_path() ? path.parent_path().string() : ".";
  if (const int sync_error = posix::sync_directory(directory); sync_error != 0)
    throw IoError(directory, "cannot sync the directory " + directory + ": " + std::strerror(sync_error));
}

}  // namespace yadokari
