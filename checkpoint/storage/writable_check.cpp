#include "checkpoint/storage/writable_check.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>

#include "checkpoint/storage/storage_error.hpp"

namespace yadokari::storage {
namespace {

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

void check_private(const std::filesystem::path& directory) {
  const std::string name = "checkpoint directory " + directory.string();
  struct stat st {};
  if (::stat(directory.c_str(), &st) != 0) throw StorageError(name + " cannot be examined: " + std::strerror(errno));
  // Whoever else can write here could swap an epoch directory for a symlink and have the ranks
  // (root, often) write their images over any file, or replace a MANIFEST or job.json.
  if (st.st_uid != ::geteuid())
    throw StorageError(name + " belongs to uid " + std::to_string(st.st_uid) + ", not to this user (uid " +
                       std::to_string(::geteuid()) + "); use a directory of your own");
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw StorageError(name + " is writable by other users (mode " + mode + "); make it private (chmod go-w " +
                       directory.string() + ")");
  }
}

void check_writable(const std::filesystem::path& directory, std::uint64_t min_free_bytes) {
  const std::string name = "checkpoint directory " + directory.string();
  std::error_code error;
  if (std::filesystem::exists(directory, error) && !std::filesystem::is_directory(directory, error))
    throw StorageError(name + " is not a directory");
  const bool existed = std::filesystem::exists(directory, error);
  // Only the directory itself is made: a typo in a parent must not grow a tree somewhere.
  if (!existed && ::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) {
    const std::filesystem::path parent = directory.parent_path();
    if (errno == ENOENT && !parent.empty())
      throw StorageError(name + " cannot be created: " + parent.string() + " does not exist");
    throw StorageError(name + " cannot be created: " + std::strerror(errno));
  }
  // One we create is private whatever the umask (a umask of 002 would make it group-writable).
  if (!existed) std::filesystem::permissions(directory, std::filesystem::perms::owner_all, error);
  check_private(directory);

  // access(W_OK) would say yes to root on a read-only mount; creating a file tells the truth.
  const std::string probe = (directory / (".yadokari-write-probe-" + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw StorageError(name + " is not writable: " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());

  struct statvfs fs {};
  if (::statvfs(directory.c_str(), &fs) != 0) throw StorageError(name + " cannot be examined: " + std::strerror(errno));
  const std::uint64_t free_bytes = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (free_bytes < min_free_bytes)
    throw StorageError(name + " has only " + mib(free_bytes) + " free (at least " + mib(min_free_bytes) + " needed)");
}

}  // namespace yadokari::storage
