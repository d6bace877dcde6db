#include "common/posix_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace yadokari::posix {

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

int read_at(int fd, std::uint64_t offset, void* data, std::size_t size, std::size_t& done) {
  auto* out = static_cast<char*>(data);
  done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

int write_all_at(int fd, std::uint64_t offset, const void* data, std::size_t size) {
  const auto* in = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pwrite(fd, in + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

int sync_directory(const std::string& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  return rc == 0 ? 0 : saved;
}

int open_directory(const std::string& path, LastLink last, std::string& why) {
  const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (last == LastLink::refuse ? O_NOFOLLOW : 0);
  const int fd = ::open(path.c_str(), flags);
  if (fd >= 0) return fd;
  int saved = errno;
  // O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR or ELOOP: say what it is.
  struct stat st {};
  if (last == LastLink::refuse && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    why = "it is a symlink";
    saved = ELOOP;
  } else {
    why = std::strerror(saved);
  }
  errno = saved;
  return -1;
}

std::string parent_directory(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace yadokari::posix
