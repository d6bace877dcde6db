// Threads the application creates are application threads (their allocations go to the arena);
// threads created inside a library call (e.g. an MPI progress thread) or before main are
// library threads (glibc allocations, libc's random state) — docs/architecture.md, pitfall 7.
#include <dlfcn.h>
#include <pthread.h>

#include <cerrno>

#include "routing.hpp"
#include "common/export.hpp"

extern "C" void __libc_free(void*);
extern "C" void* __libc_malloc(std::size_t);

namespace yadokari::memory {
namespace {

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
CreateFn g_create;

struct Start {
  void* (*fn)(void*);
  void* arg;
  bool app;
};

void* thread_start(void* p) {
  Start s = *static_cast<Start*>(p);
  __libc_free(p);
  t_app = s.app;
  t_lib = !s.app;
  return s.fn(s.arg);
}

__attribute__((constructor(101))) void resolve() {
  g_create = reinterpret_cast<CreateFn>(dlsym(RTLD_NEXT, "pthread_create"));
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  if (!g_create) resolve();
  auto* s = static_cast<Start*>(__libc_malloc(sizeof(Start)));
  if (!s) return EAGAIN;
  *s = Start{fn, arg, app_context()};
  int rc = g_create(thread, attr, thread_start, s);
  if (rc != 0) __libc_free(s);
  return rc;
}
