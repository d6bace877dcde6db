// POSIX timers the application creates (timer_create) are not carried: a timer is kernel state of
// the process, its id means nothing in a restarted one (timer_settime on it fails, its signal never
// comes). The application's timers are noted here and a checkpoint is refused while one exists
// (checkpoint/memory/README.md, "Refused, with the reason"); timer_delete forgets it. The real
// functions are resolved at load time (docs/architecture.md, pitfall 8); errno is left as they set it.
#include <dlfcn.h>
#include <signal.h>
#include <time.h>

#include <cstdint>
#include <cstdio>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "checkpoint/memory/src/spin_lock.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

constexpr int kMaxTimers = 32;
struct Slot {
  bool used;
  timer_t id;
};
Slot g_timers[kMaxTimers];
bool g_overflow;
SpinLock g_lock;

struct Locked : SpinGuard {
  Locked() : SpinGuard(g_lock) {}
};

int (*g_timer_create)(clockid_t, struct sigevent*, timer_t*);
int (*g_timer_delete)(timer_t);

void resolve() {
  if (g_timer_delete) return;
  g_timer_create = reinterpret_cast<decltype(g_timer_create)>(dlsym(RTLD_NEXT, "timer_create"));
  g_timer_delete = reinterpret_cast<decltype(g_timer_delete)>(dlsym(RTLD_NEXT, "timer_delete"));
  if (!g_timer_create || !g_timer_delete) fatal("cannot resolve libc's timer_create/timer_delete");
}

void check() {
  Locked l;
  if (g_overflow) refusal_add("the application created more POSIX timers than are followed (32), which is not carried");
  for (const Slot& s : g_timers) {
    if (!s.used) continue;
    char line[128];
    std::snprintf(line, sizeof line, "POSIX timer %ld (timer_create) is not carried",
                  static_cast<long>(reinterpret_cast<std::intptr_t>(s.id)));
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

YK_C_API int timer_create(clockid_t clock, struct sigevent* event, timer_t* id) noexcept {
  resolve();
  const int r = g_timer_create(clock, event, id);
  if (r == 0 && use_arena()) {
    Locked l;
    Slot* free_slot = nullptr;
    for (Slot& s : g_timers)
      if (!s.used) {
        free_slot = &s;
        break;
      }
    if (free_slot)
      *free_slot = {true, *id};
    else
      g_overflow = true;
  }
  return r;
}

YK_C_API int timer_delete(timer_t id) noexcept {
  resolve();
  const int r = g_timer_delete(id);
  if (r == 0) {
    Locked l;
    for (Slot& s : g_timers)
      if (s.used && s.id == id) s.used = false;
  }
  return r;
}
