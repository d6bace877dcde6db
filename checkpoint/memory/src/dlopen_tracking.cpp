// The application's dlopen requests: which libraries it loaded after start, so that the capture
// can carry them (loaded_libraries.hpp).
//
// The requests are noted by an assembly stub (dlopen_stub_x86_64.S) that then tail-jumps to glibc's
// dlopen, so glibc still sees the application as the caller (its RUNPATH, its namespace). Only
// what was asked in application context is noted: what the MPI library loads inside MPI calls
// (Open MPI's components) is never the application's. At the checkpoint each noted name is looked
// up again without loading anything (library_table.cpp). Such a request coming from the executable
// is also steered into the library region (library_region.hpp), so that the library's address is
// free again in a restarted process.
#include <dlfcn.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/library_region.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "checkpoint/memory/src/spin_lock.hpp"

extern "C" {
void* (*yk_real_dlopen)(const char*, int);  // glibc's dlopen, the stub's jump target
int yk_note_dlopen(const char* name, int mode, const void* caller);
void* yk_steered_dlopen(const char* name, int mode);
}

namespace yadokari::memory {
namespace {

constexpr int kMaxRequests = kMaxDlopenRequests;
struct Request {
  bool used;
  DlopenRequest request;
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

// The bits that change how the library is bound or shared; the others are the call's own.
constexpr int kKeptModeBits = RTLD_GLOBAL | RTLD_NODELETE | RTLD_DEEPBIND;

void note(const char* name, int mode) {
  Request* free_slot = nullptr;
  for (Request& r : g_requests) {
    if (r.used && std::strcmp(r.request.name, name) == 0) {
      r.request.mode |= mode & kKeptModeBits;
      return;
    }
    if (!r.used && !free_slot) free_slot = &r;
  }
  if (free_slot) {
    std::snprintf(free_slot->request.name, sizeof free_slot->request.name, "%s", name);
    free_slot->request.mode = mode & ~RTLD_NOLOAD;
    free_slot->used = true;
  } else if (!g_warned_full) {
    g_warned_full = true;
    char n[21];
    say("more than ", format_u64(n, kMaxRequests), " dlopen requests by the application: a checkpoint will be refused");
  }
}

__attribute__((constructor(101))) void init() { resolve(); }

}  // namespace

void* real_dlopen(const char* name, int mode) {
  resolve();
  return yk_real_dlopen(name, mode);
}

bool dlopen_requests_overflowed() {
  Locked l;
  return g_warned_full;
}

int dlopen_requests(DlopenRequest* out, int max) {
  Locked l;
  int n = 0;
  for (const Request& r : g_requests)
    if (r.used && n < max) out[n++] = r.request;
  return n;
}

void replace_dlopen_requests(const DlopenRequest* in, int n) {
  Locked l;
  for (Request& r : g_requests) r.used = false;
  for (int i = 0; i < n && i < kMaxRequests; ++i) g_requests[i] = {true, in[i]};
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

// Called by the stub before the jump: must leave errno and dlerror's state alone. Nonzero: the
// stub jumps to yk_steered_dlopen instead of glibc's dlopen.
extern "C" int yk_note_dlopen(const char* name, int mode, const void* caller) {
  resolve();  // a library constructor may dlopen before ours ran
  if (!name || (mode & RTLD_NOLOAD) || !app_context()) return 0;
  const int saved_errno = errno;
  if (use_arena()) {
    Locked l;
    note(name, mode);
  }
  // Steered also in a process that has yet to restore: code before the restore point loads what it
  // loaded in the first run at the same place again, the top of the untouched region.
  const bool steer = steers_dlopen(caller);
  errno = saved_errno;
  return steer ? 1 : 0;
}

extern "C" void* yk_steered_dlopen(const char* name, int mode) { return steered_dlopen(name, mode); }
