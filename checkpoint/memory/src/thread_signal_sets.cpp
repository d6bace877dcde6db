// A thread's signal sets from /proc: see thread_signal_sets.hpp.
#include "checkpoint/memory/src/thread_signal_sets.hpp"

#include <fcntl.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "checkpoint/memory/src/raw_syscalls.hpp"

namespace yadokari::memory {

bool read_thread_signal_sets(const char* path, ThreadSignalSets& out) {
  const long fd = real_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>(path), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[8192];
  std::size_t len = 0;
  for (long n; len < sizeof text - 1; len += static_cast<std::size_t>(n)) {
    n = real_syscall(SYS_read, fd, reinterpret_cast<long>(text + len), static_cast<long>(sizeof text - 1 - len));
    if (n <= 0) break;
  }
  real_syscall(SYS_close, fd);
  text[len] = '\0';
  const char* pending = std::strstr(text, "\nSigPnd:");
  const char* shared = std::strstr(text, "\nShdPnd:");
  const char* blocked = std::strstr(text, "\nSigBlk:");
  if (!pending || !shared || !blocked) return errno = EINVAL, false;
  out.pending = std::strtoull(pending + 8, nullptr, 16);
  out.shared_pending = std::strtoull(shared + 8, nullptr, 16);
  out.blocked = std::strtoull(blocked + 8, nullptr, 16);
  return true;
}

}  // namespace yadokari::memory
