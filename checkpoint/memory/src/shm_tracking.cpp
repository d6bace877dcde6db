// System V shared memory the application attaches is not carried: its bytes are not in the image
// and the segment may be gone at restart. A checkpoint is refused while one is attached
// (checkpoint/memory/README.md, "Refused, with the reason").
//
// The segment ids the application gets (shmget) or attaches (shmat) in application context are
// noted; at the checkpoint /proc/self/maps tells which are attached where (a System V mapping's
// inode is its segment id). Not the wrappers' own bookkeeping of shmat/shmdt: UCX (under MPICH)
// patches every object's GOT entry for shmat/shmdt to its own hooks, which call libc's directly,
// so an interposed shmat is not always reached — shmget is. The real functions are resolved at
// load time (docs/architecture.md, pitfall 8); errno is left as they set it.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/shm.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "checkpoint/memory/src/spin_lock.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

constexpr int kMaxIds = 64;
int g_ids[kMaxIds];  // noted segment ids, -1: free
int g_id_count;
SpinLock g_lock;
bool g_warned_full;

struct Locked : SpinGuard {
  Locked() : SpinGuard(g_lock) {}
};

int (*g_shmget)(key_t, std::size_t, int);
void* (*g_shmat)(int, const void*, int);

void resolve() {
  if (g_shmat) return;
  g_shmget = reinterpret_cast<int (*)(key_t, std::size_t, int)>(dlsym(RTLD_NEXT, "shmget"));
  g_shmat = reinterpret_cast<void* (*)(int, const void*, int)>(dlsym(RTLD_NEXT, "shmat"));
  if (!g_shmget || !g_shmat) fatal("cannot resolve libc's shmget/shmat");
}

void note_id(int id) {
  if (id < 0 || !use_arena()) return;
  Locked l;
  for (int i = 0; i < g_id_count; ++i)
    if (g_ids[i] == id) return;
  if (g_id_count < kMaxIds) {
    g_ids[g_id_count++] = id;
  } else if (!g_warned_full) {
    const int saved_errno = errno;
    say("more than 64 System V shared memory segments: the others are not checked at a checkpoint");
    errno = saved_errno;
    g_warned_full = true;
  }
}

bool noted(long id) {
  for (int i = 0; i < g_id_count; ++i)
    if (g_ids[i] == id) return true;
  return false;
}

// One line of /proc/self/maps: "start-end perms offset dev inode   /SYSV0000abcd (deleted)".
void check_line(const char* line) {
  const char* path = std::strstr(line, " /SYSV");
  if (!path) return;
  char* at = nullptr;
  const unsigned long start = std::strtoul(line, &at, 16);
  unsigned long inode = 0;
  // Skip "-end perms offset dev" (four fields), then the inode.
  for (int field = 0; field < 4 && at; ++field) at = std::strchr(at + 1, ' ');
  if (!at) return;
  inode = std::strtoul(at + 1, nullptr, 10);
  if (!noted(static_cast<long>(inode))) return;
  char text[160];
  std::snprintf(text, sizeof text, "System V shared memory segment %lu attached at 0x%lx is not carried", inode, start);
  refusal_add(text);
}

void check() {
  Locked l;
  if (g_id_count == 0) return;
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return refusal_add("cannot read /proc/self/maps to look for System V shared memory");
  static char buf[65536];  // static: the check runs on the application stack being captured
  std::size_t have = 0;
  for (;;) {
    const ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
    if (n <= 0) break;
    have += static_cast<std::size_t>(n);
    buf[have] = '\0';
    char* line = buf;
    for (char* nl; (nl = std::strchr(line, '\n')); line = nl + 1) {
      *nl = '\0';
      check_line(line);
    }
    have = static_cast<std::size_t>(buf + have - line);
    std::memmove(buf, line, have);
    if (have == sizeof buf - 1) have = 0;  // an absurdly long line: drop it
  }
  close(fd);
}

__attribute__((constructor(101))) void init() {
  resolve();
  register_refusal_check(check);
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int shmget(key_t key, std::size_t size, int flags) noexcept {
  resolve();
  const int id = g_shmget(key, size, flags);
  note_id(id);
  return id;
}

YK_C_API void* shmat(int id, const void* addr, int flags) noexcept {
  resolve();
  void* at = g_shmat(id, addr, flags);
  if (at != reinterpret_cast<void*>(-1)) note_id(id);
  return at;
}
