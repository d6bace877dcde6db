#pragma once
// Descriptors the application created that the fd table does not carry (sockets, pipes, FIFOs,
// directories, devices, eventfd, epoll...): tracked so that a checkpoint is refused while one is
// open, one line each (checkpoint/memory/README.md, "Refused, with the reason"), instead of the
// restarted process finding whatever the fresh process has on that number.
#include <sys/stat.h>

namespace yadokari::memory {

// The application got `fd` (already known to be open), which is a `kind` ("socket", "pipe",
// "eventfd"...). Preserves errno.
void note_uncarried_fd(int fd, const char* kind);
// The fd table saw the application open something that is not a regular file and not carried
// (FIFO, directory, device...). Preserves errno.
void note_uncarried_open(int fd, const struct stat& st);
// Whether `fd` is noted as one of these (its number only: the checkpoint's check compares identities).
bool is_noted_uncarried_fd(int fd);
// `fd` was closed or replaced (close, dup2 onto it).
void forget_uncarried_fd(int fd);
// `newfd` is a duplicate of `oldfd` (dup, dup2, F_DUPFD): tracked as well if `oldfd` is (not
// onto 0–2: standard_fds.hpp checks those).
void note_uncarried_dup(int oldfd, int newfd);

}  // namespace yadokari::memory
