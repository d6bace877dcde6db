#pragma once
// A file written in pieces (an image, an agent's copy of one) that readers see whole or not at all:
// the steps of write_file_atomically (atomic_file.hpp) spread over the writer's life. <name>.tmp is
// created in a directory the caller opened, O_EXCL|O_NOFOLLOW after a stale one is removed, so
// whoever can write the directory cannot redirect the write through a symlink; commit() syncs it,
// renames it over <name> and syncs the directory; whatever is not committed is removed.
// Allocation-free and defined here, inline: the memory layer writes with it while the heap it
// captures must not change, and compiles it with its own flags (no exceptions, no stack protector).
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>  // renameat
#include <cstring>

#include "common/durability.hpp"

namespace yadokari {

class AtomicFileStream {
 public:
  AtomicFileStream() = default;
  AtomicFileStream(AtomicFileStream&& other) noexcept;
  AtomicFileStream& operator=(AtomicFileStream&&) = delete;
  AtomicFileStream(const AtomicFileStream&) = delete;
  AtomicFileStream& operator=(const AtomicFileStream&) = delete;
  ~AtomicFileStream() { abandon(); }

  // Creates <name>.tmp in `directory_fd`, which stays the caller's and must stay open until commit
  // or abandon. `access` is O_WRONLY, or O_RDWR for a writer that reads its file back; the file gets
  // `mode` whatever the umask. Returns 0 or an errno (ENAMETOOLONG for a name that does not fit).
  int create(int directory_fd, const char* name, int access, mode_t mode = 0600) noexcept;

  int fd() const noexcept { return fd_; }
  const char* name() const noexcept { return name_; }
  const char* tmp_name() const noexcept { return tmp_name_; }

  // The step of commit() that failed, to say it in the caller's own words.
  enum class Step { none, sync_file, close_file, rename, sync_directory };

  // Makes the file <name>: fsync of the file (survives_crash), close, renameat, fsync of the
  // directory (survives_crash). Returns 0, or the errno of failed_step(). Before the rename a
  // failure removes the .tmp; a failed directory sync leaves <name> in place, not known durable.
  int commit(Durability durability) noexcept;
  Step failed_step() const noexcept { return failed_step_; }

  // Closes and removes the .tmp; nothing once committed or if never created.
  void abandon() noexcept;

  // Another process (a forked writer) commits the file: close this copy's descriptor, keep the .tmp.
  void hand_over() noexcept;

  // In a restarted process the descriptor numbers belong to someone else: drop them untouched.
  void forget() noexcept {
    fd_ = -1;
    directory_fd_ = -1;
  }

 private:
  int fail(Step step, int error) noexcept;

  int directory_fd_ = -1;
  int fd_ = -1;
  Step failed_step_ = Step::none;
  char name_[NAME_MAX + 1] = {};
  char tmp_name_[NAME_MAX + 1] = {};
};

// ---- definitions ----
namespace atomic_file_stream_detail {

// strlen + memcpy that refuse what does not fit, without allocating.
inline bool copy_name(char* out, std::size_t capacity, const char* name, const char* suffix) {
  const std::size_t length = std::strlen(name);
  const std::size_t suffix_length = std::strlen(suffix);
  if (length + suffix_length + 1 > capacity) return false;
  std::memcpy(out, name, length);
  std::memcpy(out + length, suffix, suffix_length + 1);
  return true;
}

}  // namespace atomic_file_stream_detail

inline AtomicFileStream::AtomicFileStream(AtomicFileStream&& other) noexcept
    : directory_fd_(other.directory_fd_), fd_(other.fd_), failed_step_(other.failed_step_) {
  std::memcpy(name_, other.name_, sizeof name_);
  std::memcpy(tmp_name_, other.tmp_name_, sizeof tmp_name_);
  other.fd_ = -1;
  other.directory_fd_ = -1;
}

inline int AtomicFileStream::create(int directory_fd, const char* name, int access, mode_t mode) noexcept {
  abandon();
  if (!atomic_file_stream_detail::copy_name(name_, sizeof name_, name, "") ||
      !atomic_file_stream_detail::copy_name(tmp_name_, sizeof tmp_name_, name, ".tmp"))
    return ENAMETOOLONG;
  directory_fd_ = directory_fd;
  const int caller_errno = errno;           // the memory layer captures errno as the application's
  ::unlinkat(directory_fd_, tmp_name_, 0);  // a .tmp left by a crash; usually there is none
  errno = caller_errno;
  fd_ = ::openat(directory_fd_, tmp_name_, access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd_ < 0) return errno;
  if (::fchmod(fd_, mode) != 0) {
    const int error = errno;
    abandon();
    return error;
  }
  return 0;
}

inline int AtomicFileStream::fail(Step step, int error) noexcept {
  failed_step_ = step;
  if (step != Step::sync_directory) ::unlinkat(directory_fd_, tmp_name_, 0);
  return error;
}

inline int AtomicFileStream::commit(Durability durability) noexcept {
  if (fd_ < 0) {  // never created, abandoned, handed over or committed already: nothing to remove
    failed_step_ = Step::close_file;
    return EBADF;
  }
  failed_step_ = Step::none;
  const bool durable = durability == Durability::survives_crash;
  int error = durable && ::fsync(fd_) != 0 ? errno : 0;
  const Step failed = error != 0 ? Step::sync_file : Step::close_file;
  if (::close(fd_) != 0 && error == 0) error = errno;  // close() releases the fd even when it fails
  fd_ = -1;
  if (error != 0) return fail(failed, error);
  if (::renameat(directory_fd_, tmp_name_, directory_fd_, name_) != 0) return fail(Step::rename, errno);
  if (durable && ::fsync(directory_fd_) != 0) return fail(Step::sync_directory, errno);
  return 0;
}

inline void AtomicFileStream::abandon() noexcept {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlinkat(directory_fd_, tmp_name_, 0);
  fd_ = -1;
}

inline void AtomicFileStream::hand_over() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace yadokari
