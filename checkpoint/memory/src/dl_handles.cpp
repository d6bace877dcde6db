// The application's library handles after a restore (loaded_libraries.hpp): a handle is the
// link_map ld.so allocated for the library, and the library loaded again at its address gets a
// new one elsewhere. The old value the application kept is translated to the new one by the
// calls that take a handle: dlsym (an assembly stub, dlsym_stub_x86_64.S, because glibc needs its
// caller's address), dlclose and dlinfo (which do not look at their caller). dlvsym is not
// translated: the stub's resolution of glibc's dlsym goes through it.
#include <dlfcn.h>

#include "common/export.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"

extern "C" {
void* (*yk_real_dlsym)(void*, const char*);  // glibc's dlsym, the stub's jump target
void* yk_translate_dl_handle(void* handle);
}

namespace yadokari::memory {
namespace {

struct Real {
  int (*dlclose)(void*);
  int (*dlinfo)(void*, int, void*);
} g_real_dl;

// The stub runs before any constructor may have (other constructors call dlsym): resolved on
// the first call, by glibc's dlvsym, which is not interposed.
void resolve_dlsym() {
  if (yk_real_dlsym) return;
  auto real = reinterpret_cast<void* (*)(void*, const char*)>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34"));
  if (!real) real = reinterpret_cast<void* (*)(void*, const char*)>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5"));
  if (!real) fatal("cannot resolve libc's dlsym");
  yk_real_dlsym = real;
}

__attribute__((constructor(101))) void resolve() {
  resolve_dlsym();
  if (g_real_dl.dlinfo) return;
  g_real_dl.dlclose = reinterpret_cast<int (*)(void*)>(yk_real_dlsym(RTLD_NEXT, "dlclose"));
  g_real_dl.dlinfo = reinterpret_cast<int (*)(void*, int, void*)>(yk_real_dlsym(RTLD_NEXT, "dlinfo"));
  if (!g_real_dl.dlclose || !g_real_dl.dlinfo) fatal("cannot resolve libc's dlclose/dlinfo");
}

const Real& real() {
  if (!g_real_dl.dlinfo) resolve();
  return g_real_dl;
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

// Called by the stub: must leave errno and dlerror's state alone (it only reads a table).
extern "C" void* yk_translate_dl_handle(void* handle) {
  resolve_dlsym();
  return translate_dl_handle(handle);
}

YK_C_API int dlclose(void* handle) noexcept { return real().dlclose(translate_dl_handle(handle)); }

YK_C_API int dlinfo(void* __restrict handle, int request, void* __restrict arg) noexcept {
  return real().dlinfo(translate_dl_handle(handle), request, arg);
}
