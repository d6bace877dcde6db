// Descriptors the application created that are not carried: see uncarried_fds.hpp. The calls that
// create them are interposed here (the real ones resolved at load time: docs/architecture.md pitfall 8);
// each wrapper calls the real function and, in application context, notes the result.
// Noting never changes errno or the result: the wrappers behave exactly like the real calls.
#include "checkpoint/memory/src/uncarried_fds.hpp"
#include "checkpoint/memory/src/spin_lock.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

struct Slot {
  int fd = -1;  // -1: free
  unsigned long long dev = 0, ino = 0;
  char what[300];  // "a socket", "the FIFO /tmp/f"...
};

constexpr int kMaxSlots = 128;
Slot g_slots[kMaxSlots];
SpinLock g_lock;
bool g_warned_full;

struct Locked : SpinGuard {
  Locked() : SpinGuard(g_lock) {}
};

Slot* find(int fd) {
  for (Slot& s : g_slots)
    if (s.fd == fd) return &s;
  return nullptr;
}

// Records fd with its identity (device, inode), so that a number closed behind our back and
// reused by a library is not mistaken for it at the checkpoint.
void note(int fd, const char* kind, const char* path) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return;
  Locked l;
  Slot* s = find(fd);
  if (!s) s = find(-1);
  if (!s) {
    if (!g_warned_full)
      say("more than 128 sockets, pipes... open by the application: the others are not checked, checkpoints are "
          "refused");
    g_warned_full = true;
    return;
  }
  s->fd = fd;
  s->dev = st.st_dev;
  s->ino = st.st_ino;
  std::snprintf(s->what, sizeof s->what, "%s%s%s", kind, path[0] ? " " : "", path);
}

void check() {
  Locked l;
  // Sticky: which of the descriptors opened meanwhile are still open is not known.
  if (g_warned_full)
    refusal_add(
        "the application had more than 128 sockets, pipes and other uncarried descriptors open at once, "
        "which is not carried");
  for (Slot& s : g_slots) {
    if (s.fd < 0) continue;
    struct stat st {};
    if (fstat(s.fd, &st) != 0 || st.st_dev != s.dev || st.st_ino != s.ino) {
      s.fd = -1;  // closed behind our back (e.g. by a library), maybe reused: not the application's
      continue;
    }
    // "an eventfd", "an io_uring instance", but "a userfaultfd" (sounds like "you").
    const bool vowel = std::strchr("aeiouAEIOU", s.what[0]) != nullptr && std::strncmp(s.what, "use", 3) != 0;
    char line[sizeof s.what + 64];
    std::snprintf(line, sizeof line, "descriptor %d is %s %s, which is not carried", s.fd, vowel ? "an" : "a", s.what);
    refusal_add(line);
  }
}

struct Real {
  int (*socket)(int, int, int);
  int (*socketpair)(int, int, int, int*);
  int (*accept)(int, sockaddr*, socklen_t*);
  int (*accept4)(int, sockaddr*, socklen_t*, int);
  int (*pipe)(int*);
  int (*pipe2)(int*, int);
  int (*eventfd)(unsigned, int);
  int (*epoll_create)(int);
  int (*epoll_create1)(int);
  int (*timerfd_create)(int, int);
  int (*signalfd)(int, const sigset_t*, int);
  int (*inotify_init)();
  int (*inotify_init1)(int);
  int (*memfd_create)(const char*, unsigned);
  // glibc opens these descriptors with its internal open/pipe2, never through the symbols above.
  FILE* (*popen)(const char*, const char*);
  FILE* (*tmpfile)();
  DIR* (*opendir)(const char*);
} g_real_uc;

template <typename F>
void resolve_one(F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
  if (!f) fatal("cannot resolve a libc function that creates descriptors (socket, pipe, eventfd...)");
}

void resolve() {
  Real& r = g_real_uc;
  resolve_one(r.socket, "socket");
  resolve_one(r.socketpair, "socketpair");
  resolve_one(r.accept, "accept");
  resolve_one(r.accept4, "accept4");
  resolve_one(r.pipe, "pipe");
  resolve_one(r.pipe2, "pipe2");
  resolve_one(r.eventfd, "eventfd");
  resolve_one(r.epoll_create, "epoll_create");
  resolve_one(r.epoll_create1, "epoll_create1");
  resolve_one(r.timerfd_create, "timerfd_create");
  resolve_one(r.signalfd, "signalfd");
  resolve_one(r.inotify_init, "inotify_init");
  resolve_one(r.inotify_init1, "inotify_init1");
  resolve_one(r.memfd_create, "memfd_create");
  resolve_one(r.popen, "popen");
  resolve_one(r.tmpfile, "tmpfile");
  resolve_one(r.opendir, "opendir");
}

const Real& real() {
  if (!g_real_uc.opendir) resolve();  // called before our constructor ran
  return g_real_uc;
}

__attribute__((constructor(101))) void init() {
  if (!g_real_uc.opendir) resolve();
  register_refusal_check(check);
}

// The wrappers' common tail: note a new descriptor in application context.
int noted(int fd, const char* kind) {
  if (fd >= 0 && use_arena()) note_uncarried_fd(fd, kind);
  return fd;
}

FILE* noted_stream(FILE* f, const char* kind) {
  if (f) noted(fileno(f), kind);
  return f;
}

int noted_pair(int rc, const int* fds, const char* kind) {
  if (rc == 0 && use_arena()) {
    note_uncarried_fd(fds[0], kind);
    note_uncarried_fd(fds[1], kind);
  }
  return rc;
}

}  // namespace

void note_uncarried_fd(int fd, const char* kind) {
  int saved_errno = errno;
  note(fd, kind, "");
  errno = saved_errno;
}

bool is_noted_uncarried_fd(int fd) {
  Locked l;
  return fd >= 0 && find(fd) != nullptr;
}

void note_uncarried_open(int fd, const struct stat& st) {
  const char* kind = S_ISFIFO(st.st_mode)                         ? "FIFO"
                     : S_ISDIR(st.st_mode)                        ? "directory"
                     : S_ISSOCK(st.st_mode)                       ? "socket"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "device"
                                                                  : "special file";
  int saved_errno = errno;
  char link[40], path[256];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  path[n > 0 ? n : 0] = '\0';
  note(fd, kind, path);
  errno = saved_errno;
}

void forget_uncarried_fd(int fd) {
  if (fd < 0) return;
  Locked l;
  if (Slot* s = find(fd)) s->fd = -1;
}

void note_uncarried_dup(int oldfd, int newfd) {
  // 0–2 are compared with what they were at the restore point instead (standard_fds.hpp): a copy
  // put back onto them (the saved standard stream) is not a new descriptor.
  if (oldfd < 0 || newfd <= 2 || oldfd == newfd) return;
  int saved_errno = errno;
  char what[sizeof Slot::what];
  {
    Locked l;
    Slot* s = find(oldfd);
    if (!s) return;
    std::memcpy(what, s->what, sizeof what);
  }
  note(newfd, what, "");
  errno = saved_errno;
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int socket(int domain, int type, int protocol) noexcept {
  return noted(real().socket(domain, type, protocol), "socket");
}
YK_C_API int socketpair(int domain, int type, int protocol, int fds[2]) noexcept {
  return noted_pair(real().socketpair(domain, type, protocol, fds), fds, "socket");
}
YK_C_API int accept(int fd, sockaddr* addr, socklen_t* len) { return noted(real().accept(fd, addr, len), "socket"); }
YK_C_API int accept4(int fd, sockaddr* addr, socklen_t* len, int flags) {
  return noted(real().accept4(fd, addr, len, flags), "socket");
}
YK_C_API int pipe(int fds[2]) noexcept { return noted_pair(real().pipe(fds), fds, "pipe"); }
YK_C_API int pipe2(int fds[2], int flags) noexcept { return noted_pair(real().pipe2(fds, flags), fds, "pipe"); }
YK_C_API int eventfd(unsigned initval, int flags) noexcept { return noted(real().eventfd(initval, flags), "eventfd"); }
YK_C_API int epoll_create(int size) noexcept { return noted(real().epoll_create(size), "epoll instance"); }
YK_C_API int epoll_create1(int flags) noexcept { return noted(real().epoll_create1(flags), "epoll instance"); }
YK_C_API int timerfd_create(int clock, int flags) noexcept {
  return noted(real().timerfd_create(clock, flags), "timerfd");
}
YK_C_API int signalfd(int fd, const sigset_t* mask, int flags) noexcept {
  return noted(real().signalfd(fd, mask, flags), "signalfd");
}
YK_C_API int inotify_init() noexcept { return noted(real().inotify_init(), "inotify instance"); }
YK_C_API int inotify_init1(int flags) noexcept { return noted(real().inotify_init1(flags), "inotify instance"); }
YK_C_API int memfd_create(const char* name, unsigned flags) noexcept {
  return noted(real().memfd_create(name, flags), "memfd");
}

// A stream on a pipe to a child process (the child is not carried either).
YK_C_API FILE* popen(const char* command, const char* mode) {
  return noted_stream(real().popen(command, mode), "pipe to a command started by popen");
}
// An unnamed file (O_TMPFILE, or created and unlinked at once): nothing to reopen at a restart.
YK_C_API FILE* tmpfile() { return noted_stream(real().tmpfile(), "temporary file from tmpfile"); }
YK_C_API FILE* tmpfile64() { return tmpfile(); }
// A directory stream: like open(O_DIRECTORY), named with its path.
YK_C_API DIR* opendir(const char* name) {
  DIR* d = real().opendir(name);
  if (d && use_arena()) {
    const int saved_errno = errno;
    struct stat st {};
    if (fstat(dirfd(d), &st) == 0) note_uncarried_open(dirfd(d), st);
    errno = saved_errno;
  }
  return d;
}
