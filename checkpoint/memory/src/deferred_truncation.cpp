// Output files not emptied before the restore: see deferred_truncation.hpp.
#include "checkpoint/memory/src/deferred_truncation.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/overwrite_journal_note.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "checkpoint/memory/src/spin_lock.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

constexpr int kMaxDeferred = 64;
int g_deferred[kMaxDeferred];  // the first g_count are the noted descriptors
std::atomic<int> g_count;      // read without the lock on every close: 0 nearly always
SpinLock g_lock;

thread_local int t_application_opens;  // ApplicationOpens scopes open on this thread

bool before_restore() { return app_context() && g_restore_pending; }

using Ftruncate = int (*)(int, off_t);
using Truncate = int (*)(const char*, off_t);
Ftruncate g_real_ftruncate;
Truncate g_real_truncate;

// Resolved at load time (docs/architecture.md, pitfall 8).
__attribute__((constructor(101))) void resolve() {
  g_real_ftruncate = reinterpret_cast<Ftruncate>(dlsym(RTLD_NEXT, "ftruncate"));
  g_real_truncate = reinterpret_cast<Truncate>(dlsym(RTLD_NEXT, "truncate"));
  if (!g_real_ftruncate || !g_real_truncate) fatal("cannot resolve libc's ftruncate/truncate");
}

// A regular file that `length` would make shorter.
bool would_shrink(const struct stat& st, off_t length) {
  return S_ISREG(st.st_mode) && length >= 0 && length < st.st_size;
}

bool noted(int fd) {
  for (int i = 0; i < g_count; ++i)
    if (g_deferred[i] == fd) return true;
  return false;
}

bool take(int fd) {
  if (g_count.load(std::memory_order_relaxed) == 0) return false;
  SpinGuard l(g_lock);
  for (int i = 0; i < g_count; ++i) {
    if (g_deferred[i] != fd) continue;
    g_deferred[i] = g_deferred[--g_count];
    return true;
  }
  return false;
}

}  // namespace

bool defers_truncation(int flags) {
  return (flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY &&
         (before_restore() || (t_application_opens > 0 && g_restore_pending));
}

ApplicationOpens::ApplicationOpens() : deferring_(before_restore()) {
  if (deferring_) ++t_application_opens;
}

ApplicationOpens::~ApplicationOpens() {
  if (deferring_) --t_application_opens;
}

int real_ftruncate(int fd, off_t length) { return g_real_ftruncate(fd, length); }
int real_truncate(const char* path, off_t length) { return g_real_truncate(path, length); }

bool defers_truncation(const char* mode) { return mode && mode[0] == 'w' && before_restore(); }

bool has_conversion(const char* mode) { return mode && std::strstr(mode, ",ccs=") != nullptr; }

int stdio_open_flags(const char* mode) {
  if (!mode) return O_RDONLY;
  int flags = std::strchr(mode, '+') ? O_RDWR : mode[0] == 'r' ? O_RDONLY : O_WRONLY;
  if (mode[0] == 'w') flags |= O_CREAT | O_TRUNC;
  if (mode[0] == 'a') flags |= O_CREAT | O_APPEND;
  for (const char* c = mode + 1; *c && *c != ','; ++c) {
    if (*c == 'e') flags |= O_CLOEXEC;
    if (*c == 'x') flags |= O_EXCL;
  }
  return flags;
}

const char* stream_fdopen_mode(const char* mode) { return std::strchr(mode, '+') ? "w+" : "w"; }

bool stream_reopen_mode(const char* mode, char* out, std::size_t size) {
  const char* conversion = std::strstr(mode, ",ccs=");
  const int n = std::snprintf(out, size, "%s%s", (stdio_open_flags(mode) & O_CLOEXEC) ? "r+e" : "r+",
                              conversion ? conversion : "");
  return n >= 0 && static_cast<std::size_t>(n) < size;
}

void note_truncation_deferred(int fd) {
  if (fd < 0) return;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  SpinGuard l(g_lock);
  // Past the table: the file is not truncated at its close either (a stale tail, never lost data).
  if (g_count < kMaxDeferred && !noted(fd)) g_deferred[g_count++] = fd;
}

void truncate_deferred_before_close(int fd, FILE* stream) {
  if (fd < 0 || !take(fd)) return;
  const int saved = errno;
  if (stream) std::fflush(stream);
  const off_t end = lseek(fd, 0, SEEK_CUR);
  if (end >= 0) (void)real_ftruncate(fd, end);
  errno = saved;
}

void forget_deferred_truncations() {
  SpinGuard l(g_lock);
  g_count = 0;
}

}  // namespace yadokari::memory

// A shrinking ftruncate in application context before the restore is left out, the descriptor
// noted: cut at its offset when closed before the restore, else what the restore carries stands.
YK_C_API int ftruncate(int fd, off_t length) {
  using namespace yadokari::memory;
  if (before_restore()) {
    struct stat st {};
    if (fstat(fd, &st) == 0 && would_shrink(st, length)) {
      note_truncation_deferred(fd);
      return 0;
    }
  }
  // After a checkpoint, what a shrinking cut takes away is kept first (overwrite_journal.hpp).
  if (length >= 0) before_write_at(fd, length, UINT64_MAX);
  return real_ftruncate(fd, length);
}

YK_C_API int ftruncate64(int fd, off_t length) { return ftruncate(fd, length); }

// The same by path, before the restore: left out (no descriptor to cut at a close).
YK_C_API int truncate(const char* path, off_t length) {
  using namespace yadokari::memory;
  if (before_restore()) {
    struct stat st {};
    if (stat(path, &st) == 0 && would_shrink(st, length)) return 0;
  }
  // After a checkpoint, what it cuts off is kept first (overwrite_journal.hpp).
  if (length >= 0) before_truncate_path(path, static_cast<std::uint64_t>(length));
  return real_truncate(path, length);
}

YK_C_API int truncate64(const char* path, off_t length) { return truncate(path, length); }
