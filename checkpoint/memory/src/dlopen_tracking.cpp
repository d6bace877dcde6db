// Libraries the application loads after start (dlopen) are not carried: after a restart the
// library is not there and the application's handle points nowhere. So a checkpoint is refused
// while one is loaded (checkpoint/memory/README.md, "Refused, with the reason").
//
// The application's requests are noted by an assembly stub (dlopen_stub_x86_64.S) that then
// tail-jumps to glibc's dlopen, so glibc still sees the application as the caller (its RUNPATH,
// its namespace). Only what was asked in application context is noted: what the MPI library
// loads inside MPI calls (Open MPI's components) is never the application's. At the checkpoint
// each noted name is looked up again without loading anything (RTLD_NOLOAD matches the names of
// loaded objects): a library dlclose()d completely is gone and fine, one loaded before main
// (already carried, identity.hpp) is fine, anything else is one line.
#include <dlfcn.h>
#include <link.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "spin_lock.hpp"
#include "diag.hpp"
#include "identity.hpp"
#include "refusal.hpp"
#include "routing.hpp"

extern "C" {
void* (*yk_real_dlopen)(const char*, int);  // glibc's dlopen, the stub's jump target
void yk_note_dlopen(const char* name, int mode);
}

namespace yadokari::memory {
namespace {

constexpr int kMaxRequests = 64;
struct Request {
  bool used;
  char name[512];
};
Request g_requests[kMaxRequests];
SpinLock g_lock;
bool g_warned_full;

struct Locked : SpinGuard {
  Locked() : SpinGuard(g_lock) {}
};

void resolve() {
  if (yk_real_dlopen) return;
  yk_real_dlopen = reinterpret_cast<void* (*)(const char*, int)>(dlsym(RTLD_NEXT, "dlopen"));
  if (!yk_real_dlopen) fatal("cannot resolve libc's dlopen");
}

bool loaded_before_main(const link_map* map) {
  const ObjectList& premain = premain_objects();
  for (std::uint32_t i = 0; i < premain.count; ++i)
    if (premain.objects[i].base == map->l_addr &&
        std::strncmp(premain.objects[i].name, map->l_name, sizeof premain.objects[i].name - 1) == 0)
      return true;
  return false;
}

void check() {
  Locked l;
  for (Request& r : g_requests) {
    if (!r.used) continue;
    void* handle = yk_real_dlopen(r.name, RTLD_NOLOAD | RTLD_LAZY);
    if (!handle) {
      dlerror();  // our lookup's failure is not the application's to read
      r.used = false;
      continue;
    }
    link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0] &&
        !loaded_before_main(map)) {
      char line[700];
      std::snprintf(line, sizeof line,
                    "library %s was loaded by the application after start (dlopen), which is not carried", map->l_name);
      refusal_add(line);
    }
    dlclose(handle);  // the reference RTLD_NOLOAD took
  }
}

__attribute__((constructor(101))) void init() {
  resolve();
  register_refusal_check(check);
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

// Called by the stub before the jump: must leave errno and dlerror's state alone.
extern "C" void yk_note_dlopen(const char* name, int mode) {
  resolve();  // a library constructor may dlopen before ours ran
  if (!name || (mode & RTLD_NOLOAD) || !use_arena()) return;
  const int saved_errno = errno;
  {
    Locked l;
    Request* free_slot = nullptr;
    bool known = false;
    for (Request& r : g_requests) {
      if (r.used && std::strcmp(r.name, name) == 0) known = true;
      if (!r.used && !free_slot) free_slot = &r;
    }
    if (!known && free_slot) {
      std::snprintf(free_slot->name, sizeof free_slot->name, "%s", name);
      free_slot->used = true;
    } else if (!known && !g_warned_full) {
      g_warned_full = true;
      say("more than 64 libraries loaded by the application: the others are not checked at a checkpoint");
    }
  }
  errno = saved_errno;
}
