// The application's regular files across a restart: see fd_table.hpp.
// glibc's fopen/freopen/fclose/tmpfile call its internal open/close, never the interposable
// symbols, so the stdio calls are interposed as well: the real one runs, then the FILE's
// descriptor is moved up the same way glibc's freopen moves one (dup, then set _fileno).
#include "checkpoint/memory/src/fd_table.hpp"
#include "checkpoint/memory/src/spin_lock.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/src/deferred_truncation.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/open_journal_note.hpp"
#include "checkpoint/memory/src/overwrite_journal_note.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "checkpoint/memory/src/standard_fds.hpp"
#include "checkpoint/memory/src/uncarried_fds.hpp"
#include "checkpoint/memory/src/written_files_note.hpp"
#include "common/export.hpp"

extern "C" void _IO_link_in(void* fp);  // glibc: puts a FILE on _IO_list_all (exported since 2.2.5)

namespace yadokari::memory {
namespace {

struct Slot {
  int fd = -1;  // -1: free
  std::uint64_t dev = 0, ino = 0;
  FILE* stream = nullptr;
  char path[kFdPathMax];
};

Slot g_slots[kMaxAppFds];
YK_TLS bool t_adopt_forced;  // AdoptOpens alive on this thread
YK_TLS int t_adopt_target;   // its target, -1 if none (or already used)
SpinLock g_lock;
// Sticky once hit: a file then opened is not carried, and which one it was is not known any more.
bool g_warned_limit, g_warned_full;

struct Locked : SpinGuard {
  Locked() : SpinGuard(g_lock) {}
};

// Files the table could not record (all its slots taken, or no descriptor free above kFdBase): a
// restart would miss them, so a checkpoint while one is still open is refused. A bit per
// descriptor number, cleared when the application closes it (under g_lock).
constexpr int kDroppedMax = 1 << 16;
std::uint64_t g_dropped[kDroppedMax / 64];
bool g_dropped_beyond;  // a dropped descriptor above kDroppedMax: refused from then on (its close is not told apart)

void mark_dropped(int fd) {
  if (fd >= kDroppedMax)
    g_dropped_beyond = true;
  else
    g_dropped[fd / 64] |= std::uint64_t{1} << (fd % 64);
}

void clear_dropped(int fd) {
  if (fd >= 0 && fd < kDroppedMax) g_dropped[fd / 64] &= ~(std::uint64_t{1} << (fd % 64));
}

struct Real {
  int (*open)(const char*, int, ...);
  int (*openat)(int, const char*, int, ...);
  int (*close)(int);
  int (*dup)(int);
  int (*dup2)(int, int);
  int (*dup3)(int, int, int);
  int (*fcntl)(int, int, ...);
  FILE* (*fopen)(const char*, const char*);
  FILE* (*freopen)(const char*, const char*, FILE*);
  FILE* (*fdopen)(int, const char*);
  int (*fclose)(FILE*);
  int (*mkostemps)(char*, int, int);  // mkstemp, mkostemp and mkstemps are this with defaults
  int (*shm_open)(const char*, int, mode_t);
} g_real_fd;

const Real& real() {
  if (!g_real_fd.fclose) resolve_fd_functions();
  return g_real_fd;
}

constexpr int kLinked = 0x0080;  // glibc libio's _IO_LINKED
constexpr int kReopenMask = O_ACCMODE | O_APPEND | O_NONBLOCK | O_DSYNC | O_SYNC | O_DIRECT;

// What the fd table carries: regular files, and the character devices that are the same thing
// whenever they are opened by path (/dev/null, /dev/zero, /dev/random, /dev/urandom: memory
// devices 1:3, 1:5, 1:8, 1:9). Everything else the application opens is refused at a checkpoint
// (uncarried_fds.hpp).
bool carried_kind(const struct stat& st) {
  if (S_ISREG(st.st_mode)) return true;
  if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != 1) return false;
  const unsigned minor_number = minor(st.st_rdev);
  return minor_number == 3 || minor_number == 5 || minor_number == 8 || minor_number == 9;
}

bool needs_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

Slot* find(int fd) {
  for (Slot& s : g_slots)
    if (s.fd == fd) return &s;
  return nullptr;
}

bool tracked(int fd) {
  if (fd < kFdBase) return false;
  Locked l;
  return find(fd) != nullptr;
}

void untrack(int fd) {
  forget_watched_fd(fd);
  Locked l;
  clear_dropped(fd);
  if (fd < kFdBase) return;
  if (Slot* s = find(fd)) s->fd = -1;
}

void record(int fd, const struct stat& st, FILE* stream) {
  Locked l;
  Slot* s = find(fd);
  if (!s) s = find(-1);
  if (!s) {
    if (!g_warned_full) say("more than 128 files open by the application: checkpoints are refused while they are");
    g_warned_full = true;
    mark_dropped(fd);
    return;
  }
  if (!fd_path(fd, s->path)) {
    s->fd = -1;
    return;
  }
  s->fd = fd;
  s->dev = st.st_dev;
  s->ino = st.st_ino;
  s->stream = stream;
}

// A descriptor the application just got: if it is a regular file, move it into the reserved
// range (keeping its close-on-exec flag) and record it. Returns the descriptor to hand out.
// An open that would truncate, in a process started to restore and before its restore: done
// without O_TRUNC, the descriptor noted (deferred_truncation.hpp).
template <class Open>
int deferring_open(int flags, Open open_with) {
  if (!defers_truncation(flags)) return open_with(flags);
  const int fd = open_with(flags & ~O_TRUNC);
  note_truncation_deferred(fd);
  return fd;
}

// Before the descriptor is handed out: the first open of a file for writing without truncating
// it after a checkpoint is journaled (open_journal.hpp), in application context or inside a
// Fortran OPEN (AdoptOpens).
int journaled(int fd, int flags) {
  if (fd >= 0 && (use_arena() || t_adopt_forced)) journal_open(fd, flags);
  return fd;
}

int adopt(int fd, FILE* stream) {
  if (fd < 0 || !(use_arena() || t_adopt_forced)) return fd;
  int saved_errno = errno;
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    errno = saved_errno;
    return fd;
  }
  if (!carried_kind(st)) {
    note_uncarried_open(fd, st);
    errno = saved_errno;
    return fd;
  }
  int target = fd;
  if (t_adopt_forced && t_adopt_target >= 0 && fd != t_adopt_target) {
    int fdflags = real().fcntl(fd, F_GETFD);
    if (real().dup3(fd, t_adopt_target, fdflags > 0 && (fdflags & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0) {
      errno = saved_errno;
      return fd;
    }
    real().close(fd);
    target = t_adopt_target;
    t_adopt_target = -1;
  } else if (fd < kFdBase) {
    int fdflags = real().fcntl(fd, F_GETFD);
    int moved = real().fcntl(fd, fdflags > 0 && (fdflags & FD_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, kFdBase);
    if (moved < 0) {
      if (!g_warned_limit) {
        char n[24];
        say("cannot move the application's descriptor ", format_u64(n, static_cast<unsigned long long>(fd)),
            " above 900 (RLIMIT_NOFILE too low?): checkpoints are refused while files opened so are open");
      }
      g_warned_limit = true;
      {
        Locked l;
        mark_dropped(fd);
      }
      errno = saved_errno;
      return fd;
    }
    real().close(fd);
    target = moved;
  }
  record(target, st, stream);
  // The number may have been judged before (another file, closed where no interposed close saw
  // it): the overwrite watch judges it afresh. Outside the table's lock (the watch takes it).
  forget_watched_fd(target);
  errno = saved_errno;
  return target;
}

void adopt_stream(FILE* f) {
  if (!f || !use_arena()) return;
  int fd = f->_fileno;
  if (fd <= 2) return;  // a standard stream redirected (freopen of stdout...): not carried
  int moved = adopt(fd, f);
  if (moved != fd) f->_fileno = moved;
}

// A copy of a standard descriptor (the launcher's stream, saved before a redirection) is refused
// while open: in a restarted process that number holds nothing, or the MPI library's descriptor.
void note_standard_copy(int oldfd, int newfd) {
  if (oldfd < 0 || oldfd > 2 || newfd <= 2 || !use_arena()) return;
  static const char* const kCopies[3] = {"copy of descriptor 0 (standard input)",
                                         "copy of descriptor 1 (standard output)",
                                         "copy of descriptor 2 (standard error)"};
  note_uncarried_fd(newfd, kCopies[oldfd]);
}

void after_dup2(int oldfd, int newfd, int r) {
  if (r < 0 || oldfd == newfd) return;
  note_standard_fd_replaced(newfd);
  note_standard_copy(oldfd, newfd);
  untrack(newfd);
  forget_uncarried_fd(newfd);
  if (use_arena()) note_uncarried_dup(oldfd, newfd);
  if (!tracked(oldfd)) return;
  // At or above the range: recorded, not moved. Below it the number is what the application asked
  // for (never moved away, which would close it): 0–2 are checked as standard descriptors
  // (standard_fds.hpp), any other is refused — a restarted process may have MPI's on it.
  if (newfd >= kFdBase) {
    adopt(newfd, nullptr);
  } else if (newfd > 2 && use_arena()) {
    char what[kFdPathMax + 64];
    {
      Locked l;
      const Slot* s = find(oldfd);
      std::snprintf(what, sizeof what, "copy (dup2) of the application's file %s", s ? s->path : "?");
    }
    note_uncarried_fd(newfd, what);
  }
}

// The refusal check: dropped files still open (a number closed behind our back and reused by a
// library is refused as well, which errs on the safe side).
void check_dropped() {
  Locked l;
  int first = -1, more = 0;
  for (int fd = 0; fd < kDroppedMax; ++fd) {
    if (!(g_dropped[fd / 64] >> (fd % 64) & 1)) {
      if (g_dropped[fd / 64] == 0) fd |= 63;  // skip an empty word
      continue;
    }
    if (real().fcntl(fd, F_GETFD) < 0) {
      clear_dropped(fd);
      continue;
    }
    if (first < 0)
      first = fd;
    else
      ++more;
  }
  if (first < 0 && !g_dropped_beyond) return;
  static char path[kFdPathMax], line[kFdPathMax + 160];  // .bss: the capture's stack is being saved
  char extra[48] = "";
  if (first < 0) {
    std::snprintf(line, sizeof line,
                  "the application has more than %d files open, which is not carried (a descriptor above %d)",
                  kMaxAppFds, kDroppedMax - 1);
  } else {
    if (!fd_path(first, path)) std::snprintf(path, sizeof path, "?");
    if (more) std::snprintf(extra, sizeof extra, ", and %d more", more);
    std::snprintf(line, sizeof line,
                  "the application has more than %d files open, which is not carried (descriptor %d %s%s)", kMaxAppFds,
                  first, path, extra);
  }
  refusal_add(line);
}

__attribute__((constructor)) void register_dropped_check() { register_refusal_check(check_dropped); }

}  // namespace

AdoptOpens::AdoptOpens(int target) {
  t_adopt_forced = true;
  t_adopt_target = target;
}

AdoptOpens::~AdoptOpens() {
  t_adopt_forced = false;
  t_adopt_target = -1;
}

bool fd_path(int fd, char* out) {
  char link[40];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, out, kFdPathMax - 1);
  if (n <= 0) return false;
  out[n] = '\0';
  return out[0] == '/';
}

bool is_app_file(int fd) { return tracked(fd); }

int deleted_app_files(DeletedFile* out, int max) {
  Locked l;
  int n = 0;
  for (const Slot& s : g_slots) {
    struct stat st {};
    if (n == max || s.fd < 0 || fstat(s.fd, &st) != 0 || st.st_dev != s.dev || st.st_ino != s.ino || st.st_nlink != 0)
      continue;
    out[n].fd = s.fd;
    std::memcpy(out[n].path, s.path, kFdPathMax);
    ++n;
  }
  return n;
}

int app_streams(FILE** out, int max) {
  Locked l;
  int n = 0;
  for (const Slot& s : g_slots)
    if (s.fd >= 0 && s.stream && s.stream->_fileno == s.fd && n < max) out[n++] = s.stream;
  return n;
}

void resolve_fd_functions() {
  if (g_real_fd.fclose) return;
  auto next = [](const char* name) { return dlsym(RTLD_NEXT, name); };
  Real r{};
  r.open = reinterpret_cast<decltype(r.open)>(next("open"));
  r.openat = reinterpret_cast<decltype(r.openat)>(next("openat"));
  r.close = reinterpret_cast<decltype(r.close)>(next("close"));
  r.dup = reinterpret_cast<decltype(r.dup)>(next("dup"));
  r.dup2 = reinterpret_cast<decltype(r.dup2)>(next("dup2"));
  r.dup3 = reinterpret_cast<decltype(r.dup3)>(next("dup3"));
  r.fcntl = reinterpret_cast<decltype(r.fcntl)>(next("fcntl"));
  r.fopen = reinterpret_cast<decltype(r.fopen)>(next("fopen"));
  r.freopen = reinterpret_cast<decltype(r.freopen)>(next("freopen"));
  r.fdopen = reinterpret_cast<decltype(r.fdopen)>(next("fdopen"));
  r.fclose = reinterpret_cast<decltype(r.fclose)>(next("fclose"));
  r.mkostemps = reinterpret_cast<decltype(r.mkostemps)>(next("mkostemps"));
  r.shm_open = reinterpret_cast<decltype(r.shm_open)>(next("shm_open"));
  if (!r.open || !r.openat || !r.close || !r.dup || !r.dup2 || !r.dup3 || !r.fcntl || !r.fopen || !r.freopen ||
      !r.fdopen || !r.fclose || !r.mkostemps || !r.shm_open)
    fatal("cannot resolve libc's open/close/dup/fcntl/fopen/mkostemps/shm_open functions");
  g_real_fd = r;
}

namespace {

// Whether two descriptors share one open file (a dup of the other: one offset, one set of status
// flags). kcmp where the kernel has it; else by moving one's offset and looking at the other's
// (the application is stopped at the checkpoint, and the offset is put back).
bool same_open_file(int a, int b) {
  const pid_t self = getpid();
  const long k = syscall(SYS_kcmp, self, self, KCMP_FILE, a, b);
  if (k >= 0) return k == 0;
  const off_t at_a = lseek(a, 0, SEEK_CUR), at_b = lseek(b, 0, SEEK_CUR);
  if (at_a < 0 || at_a != at_b) return false;
  const bool same = lseek(a, at_a + 1, SEEK_SET) == at_a + 1 && lseek(b, 0, SEEK_CUR) == at_a + 1;
  lseek(a, at_a, SEEK_SET);
  return same;
}

}  // namespace

int capture_fds(FdRecord* out) {
  Locked l;
  int n = 0;
  static struct stat file_of[kMaxAppFds];  // per record; .bss: the capture runs on one thread
  for (Slot& s : g_slots) {
    if (s.fd < 0) continue;
    struct stat st {};
    int fl = real().fcntl(s.fd, F_GETFL);
    int fdfl = real().fcntl(s.fd, F_GETFD);
    // Closed behind our back (fcloseall, a library's close) or reused for something else.
    if (fl < 0 || fdfl < 0 || fstat(s.fd, &st) != 0 || !carried_kind(st) || st.st_dev != s.dev || st.st_ino != s.ino) {
      s.fd = -1;
      continue;
    }
    file_of[n] = st;
    FdRecord& r = out[n++];
    std::memset(&r, 0, sizeof r);
    r.fd = s.fd;
    r.flags = (fl & kReopenMask) | ((fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0);
    r.offset = lseek(s.fd, 0, SEEK_CUR);
    r.size = st.st_size;
    r.stream = s.stream && s.stream->_fileno == s.fd ? reinterpret_cast<std::uint64_t>(s.stream) : 0;
    // The name now (the file may have been renamed), unless it was deleted since.
    char now[kFdPathMax];
    std::size_t len = fd_path(s.fd, now) ? std::strlen(now) : 0;
    constexpr char kDeleted[] = " (deleted)";
    bool deleted = len >= sizeof kDeleted - 1 && std::strcmp(now + len - (sizeof kDeleted - 1), kDeleted) == 0;
    std::memcpy(r.path, len && !deleted ? now : s.path, kFdPathMax);
    r.path[kFdPathMax - 1] = '\0';
    r.same_file_as = -1;
    for (int j = 0; j < n - 1 && r.same_file_as < 0; ++j)
      if (out[j].same_file_as < 0 && same_open_file(out[j].fd, r.fd)) r.same_file_as = out[j].fd;
  }
  // Files open for reading only, unless the application writes them through another descriptor.
  for (int i = 0; i < n; ++i) {
    FdRecord& r = out[i];
    if (r.same_file_as >= 0 || (r.flags & O_ACCMODE) != O_RDONLY || !S_ISREG(file_of[i].st_mode)) continue;
    bool written = false;
    for (int j = 0; j < n && !written; ++j)
      written = (out[j].flags & O_ACCMODE) != O_RDONLY && file_of[j].st_dev == file_of[i].st_dev &&
                file_of[j].st_ino == file_of[i].st_ino;
    if (!written && !identify_input(r.fd, file_of[i], r.input)) r.input.digest_kind = kDigestNone;
  }
  return n;
}

static_assert(kMaxWrittenFiles >= kMaxAppFds, "every reopened descriptor may be a written file");

bool reopen_fds(const FdRecord* records, int n, char* why, std::size_t why_len) {
  if (n < 0 || n > kMaxAppFds) return std::snprintf(why, why_len, "the image's file table is malformed"), false;
  struct rlimit rl {};
  getrlimit(RLIMIT_NOFILE, &rl);
  int tmp[kMaxAppFds];
  int opened = 0;
  auto close_opened = [&] {
    for (int i = 0; i < opened; ++i)
      if (tmp[i] >= 0) real().close(tmp[i]);
  };
  auto refuse = [&](const char* fmt, const FdRecord& r, const char* extra) {
    std::snprintf(why, why_len, fmt, r.path, r.fd, extra);
    close_opened();
    return false;
  };
  // Which earlier record a shared one copies (index), or -1.
  auto original_of = [&](int i) {
    for (int j = 0; j < i; ++j)
      if (records[j].fd == records[i].same_file_as && records[j].same_file_as < 0) return j;
    return -1;
  };
  // First check everything (nothing of this process changes), then install.
  for (int i = 0; i < n; ++i) {
    const FdRecord& r = records[i];
    if (std::memchr(r.path, '\0', sizeof r.path) == nullptr || r.path[0] != '/' || r.fd < kFdBase ||
        (r.same_file_as >= 0 && original_of(i) < 0)) {
      close_opened();
      return std::snprintf(why, why_len, "the image's file table is malformed"), false;
    }
    if (static_cast<rlim_t>(r.fd) >= rl.rlim_cur)
      return refuse("the application's file %s was descriptor %d, above this process's RLIMIT_NOFILE%s", r, "");
    if (real().fcntl(r.fd, F_GETFD) >= 0 || errno != EBADF)
      return refuse("the application's file %s was descriptor %d, which is in use in this process%s", r, "");
    if (r.same_file_as >= 0) {  // a dup of an earlier one: made from it below
      tmp[opened++] = -1;
      continue;
    }
    int fd = real().open(r.path, (r.flags & ~(O_CREAT | O_EXCL | O_TRUNC)) | O_CLOEXEC);
    if (fd < 0)
      return refuse("the application's file %s (descriptor %d) cannot be reopened: %s", r, std::strerror(errno));
    tmp[opened++] = fd;
    struct stat st {};
    if (fstat(fd, &st) != 0 || !carried_kind(st))
      return refuse("the application's file %s (descriptor %d) is no longer a regular file%s", r, "");
    if (!same_input(fd, st, r.input))
      return refuse("the application's file %s (descriptor %d), which it reads, changed since the checkpoint%s", r, "");
    if (fd >= kFdBase) return refuse("no descriptor below 900 is free to reopen %s (descriptor %d)%s", r, "");
  }
  for (int i = 0; i < n; ++i) {
    const FdRecord& r = records[i];
    const int from = r.same_file_as >= 0 ? r.same_file_as : tmp[i];  // originals come first
    real().dup3(from, r.fd, (r.flags & O_CLOEXEC) ? O_CLOEXEC : 0);
    if (tmp[i] >= 0) real().close(tmp[i]);
    struct stat st {};
    fstat(r.fd, &st);
    if (r.same_file_as < 0) {
      // Written after the checkpoint by the failed incarnation: cut back once every rank has
      // restored (written_files.hpp), not here, where another rank may already write it again.
      if ((r.flags & O_ACCMODE) != O_RDONLY && S_ISREG(st.st_mode)) note_written_file(r.path, r.size);
      lseek(r.fd, r.offset, SEEK_SET);
    }
    Locked l;
    Slot* s = find(-1);
    if (!s) continue;
    s->fd = r.fd;
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    s->stream = reinterpret_cast<FILE*>(r.stream);
    std::memcpy(s->path, r.path, kFdPathMax);
  }
  return true;
}

void relink_app_streams() {
  Locked l;
  for (Slot& s : g_slots) {
    if (s.fd < 0 || !s.stream || s.stream->_fileno != s.fd) continue;
    s.stream->_flags &= ~kLinked;
    _IO_link_in(s.stream);
  }
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

// ---- the interposed functions --------------------------------------------------------------

YK_C_API int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return adopt(journaled(deferring_open(flags, [&](int f) { return real().open(path, f, mode); }), flags), nullptr);
}

YK_C_API int open64(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return adopt(journaled(deferring_open(flags | O_LARGEFILE, [&](int f) { return real().open(path, f, mode); }),
                         flags | O_LARGEFILE),
               nullptr);
}

YK_C_API int openat(int dirfd, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return adopt(journaled(deferring_open(flags, [&](int f) { return real().openat(dirfd, path, f, mode); }), flags),
               nullptr);
}

YK_C_API int openat64(int dirfd, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return adopt(
      journaled(deferring_open(flags | O_LARGEFILE, [&](int f) { return real().openat(dirfd, path, f, mode); }),
                flags | O_LARGEFILE),
      nullptr);
}

// _FORTIFY_SOURCE variants (an open() without a mode whose flags are not constant).
YK_C_API int __open_2(const char* path, int flags) {
  return adopt(journaled(deferring_open(flags, [&](int f) { return real().open(path, f); }), flags), nullptr);
}
YK_C_API int __open64_2(const char* path, int flags) {
  return adopt(
      journaled(deferring_open(flags | O_LARGEFILE, [&](int f) { return real().open(path, f); }), flags | O_LARGEFILE),
      nullptr);
}
YK_C_API int __openat_2(int dirfd, const char* path, int flags) {
  return adopt(journaled(deferring_open(flags, [&](int f) { return real().openat(dirfd, path, f); }), flags), nullptr);
}
YK_C_API int __openat64_2(int dirfd, const char* path, int flags) {
  return adopt(journaled(deferring_open(flags | O_LARGEFILE, [&](int f) { return real().openat(dirfd, path, f); }),
                         flags | O_LARGEFILE),
               nullptr);
}

YK_C_API int creat(const char* path, mode_t mode) {
  return adopt(
      journaled(deferring_open(O_CREAT | O_WRONLY | O_TRUNC, [&](int f) { return real().open(path, f, mode); }),
                O_CREAT | O_WRONLY | O_TRUNC),
      nullptr);
}
YK_C_API int creat64(const char* path, mode_t mode) {
  return adopt(journaled(deferring_open(O_CREAT | O_WRONLY | O_TRUNC | O_LARGEFILE,
                                        [&](int f) { return real().open(path, f, mode); }),
                         O_CREAT | O_WRONLY | O_TRUNC | O_LARGEFILE),
               nullptr);
}

// glibc creates these files with its internal open: the result is adopted here like open's (a
// regular file with a name, reopened by path at a restart).
YK_C_API int mkstemp(char* templ) { return adopt(real().mkostemps(templ, 0, 0), nullptr); }
YK_C_API int mkstemp64(char* templ) { return mkstemp(templ); }
YK_C_API int mkostemp(char* templ, int flags) { return adopt(real().mkostemps(templ, 0, flags), nullptr); }
YK_C_API int mkostemp64(char* templ, int flags) { return mkostemp(templ, flags); }
YK_C_API int mkstemps(char* templ, int suffix_len) { return adopt(real().mkostemps(templ, suffix_len, 0), nullptr); }
YK_C_API int mkstemps64(char* templ, int suffix_len) { return mkstemps(templ, suffix_len); }
YK_C_API int mkostemps(char* templ, int suffix_len, int flags) {
  return adopt(real().mkostemps(templ, suffix_len, flags), nullptr);
}
YK_C_API int mkostemps64(char* templ, int suffix_len, int flags) { return mkostemps(templ, suffix_len, flags); }

// POSIX shared memory: a file in /dev/shm that glibc opens with its internal open.
YK_C_API int shm_open(const char* name, int flags, mode_t mode) {
  return adopt(real().shm_open(name, flags, mode), nullptr);
}

YK_C_API int close(int fd) {
  truncate_deferred_before_close(fd, nullptr);
  note_standard_fd_closed(fd);
  untrack(fd);
  forget_uncarried_fd(fd);
  return real().close(fd);
}

YK_C_API int dup(int fd) noexcept {
  int r = real().dup(fd);
  if (r >= 0 && use_arena()) note_uncarried_dup(fd, r);
  if (r >= 0) note_standard_copy(fd, r);
  return r >= 0 && tracked(fd) ? adopt(r, nullptr) : r;
}

YK_C_API int dup2(int oldfd, int newfd) noexcept {
  int r = real().dup2(oldfd, newfd);
  after_dup2(oldfd, newfd, r);
  return r;
}

YK_C_API int dup3(int oldfd, int newfd, int flags) noexcept {
  int r = real().dup3(oldfd, newfd, flags);
  after_dup2(oldfd, newfd, r);
  return r;
}

namespace {
int fcntl_impl(int fd, int cmd, va_list ap) {
  // Every fcntl argument is an int, a pointer or absent: passing a word covers them all.
  unsigned long arg = va_arg(ap, unsigned long);
  int r = real().fcntl(fd, cmd, arg);
  if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && r >= 0 && use_arena()) note_uncarried_dup(fd, r);
  if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && r >= 0) note_standard_copy(fd, r);
  if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && r >= 0 && tracked(fd)) return adopt(r, nullptr);
  return r;
}
}  // namespace

YK_C_API int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  int r = fcntl_impl(fd, cmd, ap);
  va_end(ap);
  return r;
}

YK_C_API int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  int r = fcntl_impl(fd, cmd, ap);
  va_end(ap);
  return r;
}

namespace {

// A "w" mode before the restore, by path (freopen, or fopen with ",ccs=", which fdopen cannot set
// up): the file created first, then opened "r+" without truncation (deferred_truncation.hpp), the
// descriptor noted. If it cannot be created, the call runs as asked and fails as it would have.
FILE* open_stream_untruncated(const char* path, const char* mode, FILE* stream) {
  char reopen[128];
  const int fd = real().open(path, stdio_open_flags(mode) & ~(O_TRUNC | O_CLOEXEC), 0666);
  if (fd >= 0) real().close(fd);
  if (fd < 0 || !stream_reopen_mode(mode, reopen, sizeof reopen))
    return stream ? real().freopen(path, mode, stream) : real().fopen(path, mode);
  FILE* f = stream ? real().freopen(path, reopen, stream) : real().fopen(path, reopen);
  if (f) note_truncation_deferred(f->_fileno);
  return f;
}

}  // namespace

YK_C_API FILE* fopen(const char* path, const char* mode) {
  if (defers_truncation(mode) && has_conversion(mode)) {
    FILE* f = open_stream_untruncated(path, mode, nullptr);
    adopt_stream(f);
    return f;
  }
  if (defers_truncation(mode)) {
    // What fopen does, but the descriptor opened without O_TRUNC (deferred_truncation.hpp).
    const int fd = real().open(path, stdio_open_flags(mode) & ~O_TRUNC, 0666);
    if (fd < 0) return nullptr;
    FILE* f = real().fdopen(fd, stream_fdopen_mode(mode));
    if (!f) {
      const int saved = errno;
      real().close(fd);
      errno = saved;
      return nullptr;
    }
    note_truncation_deferred(fd);
    adopt_stream(f);
    return f;
  }
  FILE* f = real().fopen(path, mode);
  if (f) journaled(f->_fileno, stdio_open_flags(mode));
  adopt_stream(f);
  note_stream_opened(f, mode);
  return f;
}

YK_C_API FILE* fopen64(const char* path, const char* mode) { return fopen(path, mode); }

YK_C_API FILE* freopen(const char* path, const char* mode, FILE* stream) {
  int old = stream ? stream->_fileno : -1;
  if (path) truncate_deferred_before_close(old, stream);  // freopen closes it
  FILE* f = path && defers_truncation(mode) ? open_stream_untruncated(path, mode, stream)
                                            : real().freopen(path, mode, stream);
  if (f && path) journaled(f->_fileno, stdio_open_flags(mode));
  if (!f || f->_fileno != old) untrack(old);
  forget_uncarried_fd(old);
  adopt_stream(f);
  if (path) note_stream_opened(f, mode);
  return f;
}

YK_C_API FILE* freopen64(const char* path, const char* mode, FILE* stream) { return freopen(path, mode, stream); }

YK_C_API FILE* fdopen(int fd, const char* mode) noexcept {
  FILE* f = real().fdopen(fd, mode);
  if (f && tracked(fd)) {
    {
      Locked l;
      if (Slot* s = find(fd)) s->stream = f;
    }
    note_stream_made_on_fd(f, mode);
  }
  return f;
}

YK_C_API int fclose(FILE* f) {
  int fd = f ? f->_fileno : -1;
  truncate_deferred_before_close(fd, f);
  int r = real().fclose(f);
  note_standard_fd_closed(fd);
  untrack(fd);
  forget_uncarried_fd(fd);
  return r;
}
