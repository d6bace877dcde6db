// syscall() with the number of a call the fd table follows (open, openat, creat, close, dup, dup2,
// dup3), of one that makes a descriptor the layer refuses (socket, pipe, eventfd, memfd, pidfd,
// io_uring...) or of one the overwrite watch follows (write, pwrite64, writev, pwritev(2), ftruncate, truncate,
// fallocate, copy_file_range, sendfile, splice) runs the interposed function instead, so such a
// descriptor is carried or refused and such a write watched like any other (checkpoint/memory/
// README.md, "The application's files", "Files overwritten after the checkpoint"); every other
// number goes to libc's syscall() unchanged. The arguments are read as six machine words, as
// libc's syscall() does.
#include "checkpoint/memory/src/raw_syscalls.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdarg>

#include "checkpoint/memory/src/kernel_object_fds.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

// The numbers that only make a descriptor of a kernel object (kernel_object_fds.hpp): made by the
// real call, then noted (glibc has no wrapper for some of them).
const char* kernel_object_kind(long number) {
  switch (number) {
    case SYS_pidfd_open:
      return "pidfd";
    case SYS_pidfd_getfd:
      return "descriptor taken from another process (pidfd_getfd)";
    case SYS_io_uring_setup:
      return "io_uring instance";
    case SYS_fanotify_init:
      return "fanotify group";
    case SYS_userfaultfd:
      return "userfaultfd";
    case SYS_perf_event_open:
      return "perf event";
    case SYS_memfd_secret:
      return "secret memory area (memfd_secret)";
    case SYS_fsopen:
      return "filesystem context (fsopen)";
    case SYS_fsmount:
      return "detached mount (fsmount)";
    case SYS_fspick:
      return "filesystem context (fspick)";
    case SYS_open_tree:
      return "mount tree (open_tree)";
    case SYS_mq_open:
      return "POSIX message queue";
    case SYS_open_by_handle_at:
      return "file opened by handle (open_by_handle_at)";
    default:
      return nullptr;
  }
}

}  // namespace

}  // namespace yadokari::memory

YK_C_API long syscall(long number, ...) noexcept {
  long a[6];
  va_list ap;
  va_start(ap, number);
  for (long& word : a) word = va_arg(ap, long);
  va_end(ap);
  switch (number) {
    case SYS_open:
      return open(reinterpret_cast<const char*>(a[0]), static_cast<int>(a[1]), static_cast<mode_t>(a[2]));
    case SYS_openat:
      return openat(static_cast<int>(a[0]), reinterpret_cast<const char*>(a[1]), static_cast<int>(a[2]),
                    static_cast<mode_t>(a[3]));
    case SYS_creat:
      return creat(reinterpret_cast<const char*>(a[0]), static_cast<mode_t>(a[1]));
    case SYS_close:
      return close(static_cast<int>(a[0]));
    case SYS_dup:
      return dup(static_cast<int>(a[0]));
    case SYS_dup2:
      return dup2(static_cast<int>(a[0]), static_cast<int>(a[1]));
    case SYS_dup3:
      return dup3(static_cast<int>(a[0]), static_cast<int>(a[1]), static_cast<int>(a[2]));
    // Descriptors that are refused at a checkpoint (uncarried_fds.hpp): noted like libc's wrappers'.
    case SYS_socket:
      return socket(static_cast<int>(a[0]), static_cast<int>(a[1]), static_cast<int>(a[2]));
    case SYS_socketpair:
      return socketpair(static_cast<int>(a[0]), static_cast<int>(a[1]), static_cast<int>(a[2]),
                        reinterpret_cast<int*>(a[3]));
    case SYS_accept:
      return accept(static_cast<int>(a[0]), reinterpret_cast<sockaddr*>(a[1]), reinterpret_cast<socklen_t*>(a[2]));
    case SYS_accept4:
      return accept4(static_cast<int>(a[0]), reinterpret_cast<sockaddr*>(a[1]), reinterpret_cast<socklen_t*>(a[2]),
                     static_cast<int>(a[3]));
    case SYS_pipe:
      return pipe(reinterpret_cast<int*>(a[0]));
    case SYS_pipe2:
      return pipe2(reinterpret_cast<int*>(a[0]), static_cast<int>(a[1]));
    case SYS_eventfd:
      return eventfd(static_cast<unsigned>(a[0]), 0);
    case SYS_eventfd2:
      return eventfd(static_cast<unsigned>(a[0]), static_cast<int>(a[1]));
    case SYS_epoll_create:
      return epoll_create(static_cast<int>(a[0]));
    case SYS_epoll_create1:
      return epoll_create1(static_cast<int>(a[0]));
    case SYS_timerfd_create:
      return timerfd_create(static_cast<int>(a[0]), static_cast<int>(a[1]));
    case SYS_inotify_init:
      return inotify_init();
    case SYS_inotify_init1:
      return inotify_init1(static_cast<int>(a[0]));
    case SYS_memfd_create:
      return memfd_create(reinterpret_cast<const char*>(a[0]), static_cast<unsigned>(a[1]));
    // Calls that can overwrite bytes a file held at the checkpoint: watched like libc's wrappers'
    // (overwrite_journal.hpp).
    case SYS_write:
      return write(static_cast<int>(a[0]), reinterpret_cast<const void*>(a[1]), static_cast<size_t>(a[2]));
    case SYS_pwrite64:
      return pwrite(static_cast<int>(a[0]), reinterpret_cast<const void*>(a[1]), static_cast<size_t>(a[2]), a[3]);
    case SYS_writev:
      return writev(static_cast<int>(a[0]), reinterpret_cast<const iovec*>(a[1]), static_cast<int>(a[2]));
    case SYS_pwritev:  // the offset's low word is the whole offset on x86-64
      return pwritev(static_cast<int>(a[0]), reinterpret_cast<const iovec*>(a[1]), static_cast<int>(a[2]), a[3]);
    case SYS_pwritev2:
      return pwritev2(static_cast<int>(a[0]), reinterpret_cast<const iovec*>(a[1]), static_cast<int>(a[2]), a[3],
                      static_cast<int>(a[5]));
    case SYS_ftruncate:
      return ftruncate(static_cast<int>(a[0]), a[1]);
    case SYS_truncate:
      return truncate(reinterpret_cast<const char*>(a[0]), a[1]);
    case SYS_fallocate:
      return fallocate(static_cast<int>(a[0]), static_cast<int>(a[1]), a[2], a[3]);
    case SYS_copy_file_range:
      return copy_file_range(static_cast<int>(a[0]), reinterpret_cast<off_t*>(a[1]), static_cast<int>(a[2]),
                             reinterpret_cast<off_t*>(a[3]), static_cast<size_t>(a[4]), static_cast<unsigned>(a[5]));
    case SYS_sendfile:
      return sendfile(static_cast<int>(a[0]), static_cast<int>(a[1]), reinterpret_cast<off_t*>(a[2]),
                      static_cast<size_t>(a[3]));
    case SYS_splice:
      return splice(static_cast<int>(a[0]), reinterpret_cast<loff_t*>(a[1]), static_cast<int>(a[2]),
                    reinterpret_cast<loff_t*>(a[3]), static_cast<size_t>(a[4]), static_cast<unsigned>(a[5]));
    case SYS_signalfd:
    case SYS_signalfd4:
      // The kernel's mask is 8 bytes (what glibc's signalfd passes); any other size keeps the
      // kernel's own answer (EINVAL).
      if (a[2] != 8) break;
      return signalfd(static_cast<int>(a[0]), reinterpret_cast<const sigset_t*>(a[1]),
                      number == SYS_signalfd4 ? static_cast<int>(a[3]) : 0);
    default:
      if (const char* kind = yadokari::memory::kernel_object_kind(number)) {
        const long fd = yadokari::memory::real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
        yadokari::memory::note_kernel_object_fd(static_cast<int>(fd), kind);
        return fd;
      }
      break;
  }
  return yadokari::memory::real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
