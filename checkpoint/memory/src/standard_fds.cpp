// Redirected standard descriptors: see standard_fds.hpp. Compared by device and inode (a pipe, a
// terminal, a file), whoever changed them (dup2, freopen, close + open, a glibc-internal path):
// the layer's own wrappers only see the calls made through the interposable symbols.
#include "checkpoint/memory/src/standard_fds.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"

namespace yadokari::memory {
namespace {

struct Noted {
  bool open;
  dev_t dev;
  ino_t ino;
};

Noted g_noted[3];
bool g_closed[3];   // closed by the application since the restore point
bool g_have_noted;  // no restore point yet (the memory tests without one): nothing to compare

const char* const kNames[3] = {"standard input", "standard output", "standard error"};

void check() {
  if (!g_have_noted) return;
  for (int fd = 0; fd < 3; ++fd) {
    struct stat st {};
    const bool open = fstat(fd, &st) == 0;
    const Noted& n = g_noted[fd];
    if (g_closed[fd] && n.open) {
      char line[160];
      std::snprintf(line, sizeof line, "descriptor %d (%s) was closed by the application, which is not carried", fd,
                    kNames[fd]);
      refusal_add(line);
      continue;
    }
    if (open == n.open && (!open || (st.st_dev == n.dev && st.st_ino == n.ino))) continue;
    char line[512];
    if (!open) {
      std::snprintf(line, sizeof line, "descriptor %d (%s) was closed by the application, which is not carried", fd,
                    kNames[fd]);
    } else {
      char link[32], target[256];
      std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
      ssize_t len = readlink(link, target, sizeof target - 1);
      target[len > 0 ? len : 0] = '\0';
      std::snprintf(line, sizeof line,
                    "descriptor %d (%s) was redirected by the application to %s, which is not carried", fd, kNames[fd],
                    target);
    }
    refusal_add(line);
  }
}

__attribute__((constructor)) void register_check() { register_refusal_check(check); }

}  // namespace

void note_standard_fds() {
  for (int fd = 0; fd < 3; ++fd) {
    struct stat st {};
    g_noted[fd].open = fstat(fd, &st) == 0;
    g_noted[fd].dev = st.st_dev;
    g_noted[fd].ino = st.st_ino;
    g_closed[fd] = false;
  }
  g_have_noted = true;
}

void note_standard_fd_closed(int fd) {
  if (fd >= 0 && fd < 3 && use_arena()) g_closed[fd] = true;
}

void note_standard_fd_replaced(int fd) {
  if (fd >= 0 && fd < 3) g_closed[fd] = false;
}

}  // namespace yadokari::memory
