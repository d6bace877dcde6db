#pragma once
// What the two journals of files written after a checkpoint share (open_journal.hpp,
// overwrite_journal.hpp): a lock that can be taken inside an interposed call, and raw I/O that
// goes around the layer's own interposed open/close/write.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "checkpoint/memory/src/raw_syscalls.hpp"

namespace yadokari::memory {

// Held across a journal's write and sync, by whichever application thread opens or writes a file;
// a thread that finds it taken yields. Signals are blocked meanwhile: open() and write() are
// async-signal-safe, so a handler may call them, and one that interrupted this thread inside the
// lock would spin on it for ever. The raw syscall: the layer's own sigprocmask/pthread_sigmask
// track the application's masks.
class JournalLock {
 public:
  explicit JournalLock(std::atomic<bool>& flag) : flag_(flag) {
    const unsigned long all = ~0UL;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old_mask_, sizeof all);
    while (flag_.exchange(true, std::memory_order_acquire)) sched_yield();
  }
  ~JournalLock() {
    flag_.store(false, std::memory_order_release);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old_mask_, nullptr, sizeof old_mask_);
  }
  JournalLock(const JournalLock&) = delete;
  JournalLock& operator=(const JournalLock&) = delete;

 private:
  std::atomic<bool>& flag_;
  unsigned long old_mask_ = 0;
};

inline int raw_openat(int dir, const char* path, int flags, mode_t mode = 0) {
  return static_cast<int>(
      real_syscall(SYS_openat, dir, reinterpret_cast<long>(path), flags | O_CLOEXEC, static_cast<long>(mode)));
}

inline void raw_close(int fd) {
  if (fd >= 0) real_syscall(SYS_close, fd);
}

inline bool raw_write_all(int fd, const char* p, std::size_t n) {
  while (n) {
    const long w = real_syscall(SYS_write, fd, reinterpret_cast<long>(p), static_cast<long>(n));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

inline bool raw_pwrite_all(int fd, const char* p, std::size_t n, std::uint64_t offset) {
  while (n) {
    const long w =
        real_syscall(SYS_pwrite64, fd, reinterpret_cast<long>(p), static_cast<long>(n), static_cast<long>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    offset += static_cast<std::uint64_t>(w);
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// Reads up to `n` bytes at `offset`; returns how many (fewer only at the end of the file), -1 on
// an error.
inline long raw_pread_full(int fd, char* p, std::size_t n, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < n) {
    const long r = real_syscall(SYS_pread64, fd, reinterpret_cast<long>(p + done), static_cast<long>(n - done),
                                static_cast<long>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    done += static_cast<std::size_t>(r);
  }
  return static_cast<long>(done);
}

// A journal file's name: the generation in canonical decimal, then `suffix` ("" for the open
// journal's files, ".pre" for the overwrite journal's). False for any other name.
inline bool generation_file_name(const char* name, const char* suffix, std::uint64_t& generation) {
  const std::size_t length = std::strlen(name), suffix_length = std::strlen(suffix);
  if (length <= suffix_length || length - suffix_length > 19 || std::strcmp(name + length - suffix_length, suffix) != 0)
    return false;
  generation = 0;
  for (std::size_t i = 0; i < length - suffix_length; ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    generation = generation * 10 + static_cast<std::uint64_t>(name[i] - '0');
  }
  return true;
}

// A journal file read whole (library context: it allocates). False with errno set when it cannot be
// opened or read.
inline bool read_journal_file(const std::string& path, std::string& bytes) {
  const int fd = raw_openat(AT_FDCWD, path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  char buffer[65536];
  std::uint64_t at = 0;
  long got = 0;
  while ((got = raw_pread_full(fd, buffer, sizeof buffer, at)) > 0) {
    bytes.append(buffer, static_cast<std::size_t>(got));
    at += static_cast<std::uint64_t>(got);
  }
  const int saved = errno;
  raw_close(fd);
  errno = saved;
  return got == 0;
}

}  // namespace yadokari::memory
