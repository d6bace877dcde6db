#pragma once
// Descriptors of kernel objects made by the newer calls (pidfd, io_uring, fanotify, userfaultfd,
// perf events, secret memory, the mount API, message queues, open_by_handle_at): refused at a
// checkpoint while open (kernel_object_fds.cpp).

namespace yadokari::memory {

// `fd` (the result of such a call, -1 on failure) is noted as `kind` ("pidfd"...) when the
// application made it. Preserves errno.
void note_kernel_object_fd(int fd, const char* kind);

}  // namespace yadokari::memory
