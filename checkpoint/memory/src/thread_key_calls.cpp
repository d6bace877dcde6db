// The interposers of pthread_key_create, pthread_key_delete and pthread_setspecific: what the
// application's code does with its thread-specific data keys goes into the live record
// (thread_keys.hpp).
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include "checkpoint/memory/src/identity.hpp"
#include "checkpoint/memory/src/linked_libraries.hpp"
#include "checkpoint/memory/src/openmp_pool_signals.hpp"
#include "checkpoint/memory/src/process_state.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "checkpoint/memory/src/thread_keys.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

// Whether the code at `pc` belongs to a library whose state a restarted process has fresh: an
// object loaded before main other than the executable and the linked libraries whose data is the
// application's (linked_libraries.hpp). A key such a library makes (libomp's, lazily in the first
// parallel region the application starts) is its own.
bool in_fresh_library(const void* pc) {
  Dl_info info;
  if (!dladdr(pc, &info) || !info.dli_fbase) return false;
  const auto base = reinterpret_cast<std::uint64_t>(info.dli_fbase);
  const ObjectList& objects = premain_objects();
  for (std::uint32_t i = 1; i < objects.count; ++i)  // the first is the executable
    if (objects.objects[i].base == base) return !is_carried_linked_library(base);
  return false;
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int pthread_key_create(pthread_key_t* key, void (*destructor)(void*)) {
  const int r = real_pthread_key_create(key, destructor);
  if (r == 0 && app_context() && !in_fresh_library(__builtin_return_address(0))) {
    ProcessStateLocked l;
    note_thread_key_created(live_process_state().keys, *key, reinterpret_cast<const void*>(destructor),
                            records_process_state());
  }
  return r;
}

YK_C_API int pthread_key_delete(pthread_key_t key) {
  const int r = real_pthread_key_delete(key);
  if (r == 0 && app_context() && !in_fresh_library(__builtin_return_address(0))) {
    ProcessStateLocked l;
    note_thread_key_deleted(live_process_state().keys, key);
  }
  return r;
}

YK_C_API int pthread_setspecific(pthread_key_t key, const void* value) {
  const int r = real_pthread_setspecific(key, value);
  // A library's key (most calls: libraries keep per-thread state this way) costs no lock. The
  // marks change only when a key is made or deleted, never concurrently with its own use.
  if (r == 0 && records_process_state() && is_application_key(live_process_state().keys, key)) {
    ProcessStateLocked l;
    note_thread_key_set(live_process_state().keys, key, on_main_thread(), on_openmp_pool_thread(), value != nullptr);
  }
  return r;
}
