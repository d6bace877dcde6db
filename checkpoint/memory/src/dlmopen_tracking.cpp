// Libraries the application loads with dlmopen are not carried: the library table follows the
// base link-map namespace only (dlopen_tracking.cpp), and a restarted process would use the image's
// pointers into libraries that were never loaded again. So the application's dlmopen requests are
// noted (a stub, dlmopen_stub_x86_64.S, notes and tail-jumps to glibc's), and a checkpoint is
// refused while a library so loaded is still loaded (checkpoint/memory/README.md, "Refused, with
// the reason"). Whether it still is: glibc's dl_iterate_phdr shows only the caller's namespace, so
// each noted name is looked up without loading (RTLD_NOLOAD) in every namespace it may be in.
#include <dlfcn.h>
#include <link.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "checkpoint/memory/src/spin_lock.hpp"

extern "C" {
void* (*yk_real_dlmopen)(Lmid_t, const char*, int);  // glibc's dlmopen, the stub's jump target
void yk_note_dlmopen(Lmid_t lmid, const char* name, int mode);
}

namespace yadokari::memory {
namespace {

constexpr int kMaxRequests = 32;
constexpr Lmid_t kNamespaces = 16;  // glibc's DL_NNS: namespaces 1..15 are dlmopen's

struct Request {
  bool used;
  bool base;  // asked for LM_ID_BASE: bypasses the dlopen tracking, looked up in namespace 0
  char name[256];
};
Request g_requests[kMaxRequests];
bool g_overflow;
SpinLock g_lock;

struct Locked : SpinGuard {
  Locked() : SpinGuard(g_lock) {}
};

void resolve() {
  if (yk_real_dlmopen) return;
  yk_real_dlmopen = reinterpret_cast<void* (*)(Lmid_t, const char*, int)>(dlsym(RTLD_NEXT, "dlmopen"));
  if (!yk_real_dlmopen) fatal("cannot resolve libc's dlmopen");
}

__attribute__((constructor(101))) void init() { resolve(); }

void note(Lmid_t lmid, const char* name) {
  const bool base = lmid == LM_ID_BASE;
  Request* free_slot = nullptr;
  for (Request& r : g_requests) {
    if (r.used && r.base == base && std::strcmp(r.name, name) == 0) return;
    if (!r.used && !free_slot) free_slot = &r;
  }
  if (!free_slot || std::strlen(name) >= sizeof free_slot->name) {
    g_overflow = true;  // refused: what it loaded cannot be looked up
    return;
  }
  free_slot->used = true;
  free_slot->base = base;
  std::strcpy(free_slot->name, name);
}

void refuse_loaded(const Request& r, Lmid_t lmid) {
  void* handle = yk_real_dlmopen(lmid, r.name, RTLD_LAZY | RTLD_NOLOAD);
  if (!handle) {
    dlerror();  // an unused namespace is an error: forget it
    return;
  }
  struct link_map* map = nullptr;
  const char* path = dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name[0] ? map->l_name : r.name;
  char line[512];
  std::snprintf(line, sizeof line,
                "library %s was loaded with dlmopen into link-map namespace %ld, which is not carried", path,
                static_cast<long>(lmid));
  refusal_add(line);
  dlclose(handle);  // the lookup's reference
}

void check() {
  Locked l;
  if (g_overflow)
    refusal_add("the application made more dlmopen requests than are followed (32), which is not carried");
  for (const Request& r : g_requests) {
    if (!r.used) continue;
    if (r.base) {
      refuse_loaded(r, LM_ID_BASE);
      continue;
    }
    for (Lmid_t lmid = 1; lmid < kNamespaces; ++lmid) refuse_loaded(r, lmid);
  }
}

__attribute__((constructor)) void register_check() { register_refusal_check(check); }

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

// Called by the stub before the jump: leaves errno alone.
extern "C" void yk_note_dlmopen(Lmid_t lmid, const char* name, int mode) {
  resolve();  // a library constructor may dlmopen before ours ran
  if (!name || (mode & RTLD_NOLOAD) || !use_arena()) return;
  const int saved_errno = errno;
  {
    Locked l;
    note(lmid, name);
  }
  errno = saved_errno;
}
