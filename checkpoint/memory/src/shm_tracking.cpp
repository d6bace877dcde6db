// System V shared memory the application attaches (shmat) is not carried: its bytes are not in
// the image and the segment may be gone at restart. A checkpoint is refused while one is attached
// (checkpoint/memory/README.md, "Refused, with the reason"). shmat/shmdt are interposed; the real
// ones are resolved at load time (docs/architecture.md, pitfall 8) and errno is left as they set it.
#include <dlfcn.h>
#include <sys/shm.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>

#include "diag.hpp"
#include "refusal.hpp"
#include "routing.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

struct Attachment {
  int id = -1;  // -1: free
  const void* addr = nullptr;
};
constexpr int kMaxAttachments = 64;
Attachment g_attached[kMaxAttachments];
std::atomic<bool> g_lock{false};
bool g_warned_full;

struct Locked {
  Locked() {
    while (g_lock.exchange(true, std::memory_order_acquire))
      while (g_lock.load(std::memory_order_relaxed)) {
      }
  }
  ~Locked() { g_lock.store(false, std::memory_order_release); }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;
};

void* (*g_shmat)(int, const void*, int);
int (*g_shmdt)(const void*);

void resolve() {
  if (g_shmdt) return;
  g_shmat = reinterpret_cast<void* (*)(int, const void*, int)>(dlsym(RTLD_NEXT, "shmat"));
  g_shmdt = reinterpret_cast<int (*)(const void*)>(dlsym(RTLD_NEXT, "shmdt"));
  if (!g_shmat || !g_shmdt) fatal("cannot resolve libc's shmat/shmdt");
}

void check() {
  Locked l;
  for (const Attachment& a : g_attached) {
    if (a.id < 0) continue;
    char line[160];
    std::snprintf(line, sizeof line, "System V shared memory segment %d attached at %p is not carried", a.id, a.addr);
    refusal_add(line);
  }
}

__attribute__((constructor(101))) void init() {
  resolve();
  register_refusal_check(check);
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API void* shmat(int id, const void* addr, int flags) noexcept {
  resolve();
  void* at = g_shmat(id, addr, flags);
  if (at == reinterpret_cast<void*>(-1) || !use_arena()) return at;
  Locked l;
  for (Attachment& a : g_attached)
    if (a.id < 0) {
      a.id = id;
      a.addr = at;
      return at;
    }
  if (!g_warned_full) {
    const int saved_errno = errno;
    say("more than 64 System V shared memory attachments: the others are not checked at a checkpoint");
    errno = saved_errno;
  }
  g_warned_full = true;
  return at;
}

YK_C_API int shmdt(const void* addr) noexcept {
  resolve();
  const int rc = g_shmdt(addr);
  if (rc == 0) {
    Locked l;
    for (Attachment& a : g_attached)
      if (a.id >= 0 && a.addr == addr) a.id = -1;
  }
  return rc;
}
