// Descriptors of kernel objects made by the calls newer than uncarried_fds.cpp's (a pidfd, an
// io_uring, a fanotify group, a userfaultfd, a perf event, secret memory, the mount API's contexts,
// a message queue, a file opened by handle): none can be rebuilt in a fresh process, so the
// checkpoint is refused while one is open (checkpoint/memory/README.md, "Refused, with the
// reason"). glibc's wrappers are interposed here; syscall() with these numbers is routed by
// syscall_routing.cpp to note_kernel_object_fd.
//
// An io_uring is also looked for at the checkpoint in /proc/self/fd: liburing makes its system
// calls with inline assembly, past every interposer, and a ring's writes are not watched by the
// overwrite journal, so a ring missed here would be silent loss. No MPI library here makes one
// (a descriptor of the MPI library's own could not be told from the application's).
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/kernel_object_fds.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "checkpoint/memory/src/uncarried_fds.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

struct Real {
  int (*pidfd_open)(pid_t, unsigned);
  int (*pidfd_getfd)(int, int, unsigned);
  int (*fanotify_init)(unsigned, unsigned);
  int (*open_by_handle_at)(int, struct file_handle*, int);
  mqd_t (*mq_open)(const char*, int, ...);
  int (*fsopen)(const char*, unsigned);
  int (*fsmount)(int, unsigned, unsigned);
  int (*fspick)(int, const char*, unsigned);
  int (*open_tree)(int, const char*, unsigned);
} g_real_ko;

template <typename F>
void resolve_one(F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
  if (!f) fatal("cannot resolve a libc function that creates descriptors (pidfd_open, fanotify_init...)");
}

void resolve() {
  Real r{};
  resolve_one(r.pidfd_open, "pidfd_open");
  resolve_one(r.pidfd_getfd, "pidfd_getfd");
  resolve_one(r.fanotify_init, "fanotify_init");
  resolve_one(r.open_by_handle_at, "open_by_handle_at");
  resolve_one(r.mq_open, "mq_open");
  resolve_one(r.fsopen, "fsopen");
  resolve_one(r.fsmount, "fsmount");
  resolve_one(r.fspick, "fspick");
  resolve_one(r.open_tree, "open_tree");
  g_real_ko = r;
}

// Resolved at load time (docs/architecture.md, pitfall 8).
__attribute__((constructor(101))) void resolve_at_load() {
  if (!g_real_ko.open_tree) resolve();
}

const Real& real() {
  if (!g_real_ko.open_tree) resolve();  // called before our constructor ran
  return g_real_ko;
}

int noted(int fd, const char* kind) {
  note_kernel_object_fd(fd, kind);
  return fd;
}

// The application's io_uring descriptors that no interposer saw (inline system calls): one line
// each. Those noted already are refused by uncarried_fds.cpp's check.
void check_rings() {
  if (!g_enabled) return;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return;
  const int own = dirfd(d);
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const int fd = std::atoi(e->d_name);
    if (fd == own || is_noted_uncarried_fd(fd)) continue;
    char link[64], target[64] = {};
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    if (readlink(link, target, sizeof target - 1) <= 0) continue;
    if (std::strcmp(target, "anon_inode:[io_uring]") != 0) continue;
    char line[160];
    std::snprintf(line, sizeof line,
                  "descriptor %d is an io_uring instance, which is not carried (its writes are not watched)", fd);
    refusal_add(line);
  }
  closedir(d);
}

__attribute__((constructor)) void register_check() { register_refusal_check(check_rings); }

}  // namespace

void note_kernel_object_fd(int fd, const char* kind) {
  if (fd >= 0 && use_arena()) note_uncarried_fd(fd, kind);
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int pidfd_open(pid_t pid, unsigned flags) noexcept { return noted(real().pidfd_open(pid, flags), "pidfd"); }
YK_C_API int pidfd_getfd(int pidfd, int target, unsigned flags) noexcept {
  return noted(real().pidfd_getfd(pidfd, target, flags), "descriptor taken from another process (pidfd_getfd)");
}
YK_C_API int fanotify_init(unsigned flags, unsigned event_flags) noexcept {
  return noted(real().fanotify_init(flags, event_flags), "fanotify group");
}
YK_C_API int open_by_handle_at(int mount_fd, struct file_handle* handle, int flags) {
  return noted(real().open_by_handle_at(mount_fd, handle, flags), "file opened by handle (open_by_handle_at)");
}
YK_C_API mqd_t mq_open(const char* name, int flags, ...) noexcept {
  mode_t mode = 0;
  mq_attr* attr = nullptr;
  if (flags & O_CREAT) {  // the two optional arguments exist only then
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, unsigned));
    attr = va_arg(ap, mq_attr*);
    va_end(ap);
  }
  return noted(real().mq_open(name, flags, mode, attr), "POSIX message queue");
}
YK_C_API int fsopen(const char* fs, unsigned flags) noexcept {
  return noted(real().fsopen(fs, flags), "filesystem context (fsopen)");
}
YK_C_API int fsmount(int fs_fd, unsigned flags, unsigned attrs) noexcept {
  return noted(real().fsmount(fs_fd, flags, attrs), "detached mount (fsmount)");
}
YK_C_API int fspick(int dirfd, const char* path, unsigned flags) noexcept {
  return noted(real().fspick(dirfd, path, flags), "filesystem context (fspick)");
}
YK_C_API int open_tree(int dirfd, const char* path, unsigned flags) noexcept {
  return noted(real().open_tree(dirfd, path, flags), "mount tree (open_tree)");
}
