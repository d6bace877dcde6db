// The application's thread-specific data keys (thread_keys.hpp): the interposers of
// pthread_key_create, pthread_key_delete and pthread_setspecific, and the record's capture, checks
// and replay.
#include "checkpoint/memory/src/thread_keys.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/identity.hpp"
#include "checkpoint/memory/src/linked_libraries.hpp"
#include "checkpoint/memory/src/openmp_pool_signals.hpp"
#include "checkpoint/memory/src/process_state.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

struct Real {
  int (*key_create)(pthread_key_t*, void (*)(void*));
  int (*key_delete)(pthread_key_t);
  int (*setspecific)(pthread_key_t, const void*);
} g_real_keys;

__attribute__((constructor(101))) void resolve() {
  if (g_real_keys.setspecific) return;
  Real r{};
  r.key_create = reinterpret_cast<decltype(r.key_create)>(dlsym(RTLD_NEXT, "pthread_key_create"));
  r.key_delete = reinterpret_cast<decltype(r.key_delete)>(dlsym(RTLD_NEXT, "pthread_key_delete"));
  r.setspecific = reinterpret_cast<decltype(r.setspecific)>(dlsym(RTLD_NEXT, "pthread_setspecific"));
  if (!r.key_create || !r.key_delete || !r.setspecific)
    fatal("cannot resolve libc's pthread_key_create/pthread_key_delete/pthread_setspecific");
  g_real_keys = r;
}

const Real& real() {
  if (!g_real_keys.setspecific) resolve();
  return g_real_keys;
}

// Whether this thread is the main one, asked of the kernel once per thread.
YK_TLS signed char t_main_thread;
bool on_main_thread() {
  if (!t_main_thread) t_main_thread = gettid() == getpid() ? 1 : -1;
  return t_main_thread > 0;
}

ThreadKeyRecord* find(ThreadKeys& keys, std::uint32_t key) {
  for (std::uint32_t i = 0; i < keys.count; ++i)
    if (keys.keys[i].key == key) return &keys.keys[i];
  return nullptr;
}

ThreadKeyRecord* find_or_add(ThreadKeys& keys, std::uint32_t key) {
  if (ThreadKeyRecord* r = find(keys, key)) return r;
  if (keys.count == kMaxThreadKeys) {
    keys.overflow = 1;
    return nullptr;
  }
  ThreadKeyRecord& r = keys.keys[keys.count++];
  r = ThreadKeyRecord{};
  r.key = key;
  return &r;
}

// Whether `key` is allocated in this process's libc, without changing anything: glibc answers
// EINVAL for a free key before it looks at the value, and setting the value a key has is no change.
bool key_allocated(pthread_key_t key) { return real().setspecific(key, pthread_getspecific(key)) == 0; }

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

bool marked(const std::uint64_t* bits, std::uint32_t key) {
  return key < kThreadKeySlots && ((bits[key / 64] >> (key % 64)) & 1U);
}
void mark(std::uint64_t* bits, std::uint32_t key, bool on) {
  if (key >= kThreadKeySlots) return;
  if (on)
    bits[key / 64] |= std::uint64_t{1} << (key % 64);
  else
    bits[key / 64] &= ~(std::uint64_t{1} << (key % 64));
}

}  // namespace

void note_thread_key_created(ThreadKeys& keys, std::uint32_t key, const void* destructor, bool recorded) {
  mark(keys.application, key, true);
  if (!recorded) return;
  ThreadKeyRecord* r = find_or_add(keys, key);
  if (!r) return;
  r->created = 1;
  r->destructor = reinterpret_cast<std::uint64_t>(destructor);
}

int real_pthread_setspecific(unsigned key, const void* value) { return real().setspecific(key, value); }

void note_thread_key_set(ThreadKeys& keys, std::uint32_t key, bool main_thread, bool pool_thread, bool non_null) {
  if (!marked(keys.application, key)) return;  // a library's key: its values are its own
  if (!main_thread) {
    if (pool_thread && non_null) mark(keys.set_elsewhere, key, true);
    return;
  }
  if (ThreadKeyRecord* r = find_or_add(keys, key)) r->set = 1;
}

void note_thread_key_deleted(ThreadKeys& keys, std::uint32_t key) {
  mark(keys.set_elsewhere, key, false);
  mark(keys.application, key, false);
  ThreadKeyRecord* r = find(keys, key);
  if (!r) return;
  std::copy(r + 1, keys.keys + keys.count, r);
  --keys.count;
}

void forget_thread_key_records(ThreadKeys& keys) {
  std::uint64_t application[kThreadKeySlots / 64];
  std::copy(keys.application, keys.application + kThreadKeySlots / 64, application);
  keys = ThreadKeys{};
  std::copy(application, application + kThreadKeySlots / 64, keys.application);
}

void read_thread_key_values(ThreadKeys& keys) {
  for (std::uint32_t i = 0; i < keys.count; ++i)
    keys.keys[i].value = keys.keys[i].set ? reinterpret_cast<std::uint64_t>(pthread_getspecific(keys.keys[i].key)) : 0;
}

bool thread_keys_carried(const ThreadKeys& keys, char* line, std::size_t line_len) {
  if (keys.overflow) {
    std::snprintf(line, line_len,
                  "the application created or set more than %u thread-specific data keys, which are not carried",
                  kMaxThreadKeys);
    return false;
  }
  for (std::uint32_t key = 0; key < kThreadKeySlots; ++key)
    if (marked(keys.set_elsewhere, key)) {
      std::snprintf(line, line_len,
                    "thread-specific data of key %u was set on an OpenMP thread, whose value is not carried (a "
                    "restarted process has a new pool)",
                    key);
      return false;
    }
  return true;
}

bool thread_keys_fit(const ThreadKeys& keys, char* why, std::size_t why_len) {
  if (keys.count > kMaxThreadKeys) return std::snprintf(why, why_len, "the image's process state is malformed"), false;
  for (std::uint32_t i = 0; i < keys.count; ++i) {
    const ThreadKeyRecord& r = keys.keys[i];
    if (r.key >= kThreadKeySlots) return std::snprintf(why, why_len, "the image's process state is malformed"), false;
    if (r.created && key_allocated(r.key)) {
      std::snprintf(why, why_len,
                    "thread-specific data key %u, which the application created after the restore point, is taken in "
                    "this process (by a library)",
                    r.key);
      return false;
    }
    if (!r.created && !key_allocated(r.key)) {
      std::snprintf(why, why_len,
                    "thread-specific data key %u, which the application used, does not exist in this process", r.key);
      return false;
    }
  }
  return true;
}

void replay_thread_keys(const ThreadKeys& keys) {
  // pthread_key_create hands out the lowest free number: keys are made in ascending order, the
  // numbers in between held by placeholders, which are deleted afterwards.
  std::uint32_t wanted[kMaxThreadKeys];
  std::uint32_t count = 0;
  // A key that a library the restore loaded again made already (its constructor, which ran in the
  // application's dlopen the first time) has its number again: it is the same key.
  for (std::uint32_t i = 0; i < keys.count; ++i)
    if (keys.keys[i].created && !key_allocated(keys.keys[i].key)) wanted[count++] = keys.keys[i].key;
  std::sort(wanted, wanted + count);
  static pthread_key_t placeholders[kThreadKeySlots];
  std::uint32_t held = 0;
  for (std::uint32_t w = 0; w < count; ++w) {
    const ThreadKeyRecord* r = nullptr;
    for (std::uint32_t i = 0; i < keys.count; ++i)
      if (keys.keys[i].key == wanted[w]) r = &keys.keys[i];
    for (;;) {
      pthread_key_t got;
      if (real().key_create(&got, reinterpret_cast<void (*)(void*)>(r->destructor)) != 0 || got > wanted[w] ||
          held == kThreadKeySlots) {
        char line[120];
        std::snprintf(line, sizeof line, "cannot make the application's thread-specific data key %u again", wanted[w]);
        say(line);
        fatal("the process is half restored and cannot continue");
      }
      if (got == wanted[w]) break;
      placeholders[held++] = got;
    }
  }
  for (std::uint32_t i = 0; i < held; ++i) real().key_delete(placeholders[i]);
  for (std::uint32_t i = 0; i < keys.count; ++i)
    if (keys.keys[i].set) real().setspecific(keys.keys[i].key, reinterpret_cast<const void*>(keys.keys[i].value));
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int pthread_key_create(pthread_key_t* key, void (*destructor)(void*)) {
  const int r = real().key_create(key, destructor);
  if (r == 0 && app_context() && !in_fresh_library(__builtin_return_address(0))) {
    ProcessStateLocked l;
    note_thread_key_created(live_process_state().keys, *key, reinterpret_cast<const void*>(destructor),
                            records_process_state());
  }
  return r;
}

YK_C_API int pthread_key_delete(pthread_key_t key) {
  const int r = real().key_delete(key);
  if (r == 0 && app_context() && !in_fresh_library(__builtin_return_address(0))) {
    ProcessStateLocked l;
    note_thread_key_deleted(live_process_state().keys, key);
  }
  return r;
}

YK_C_API int pthread_setspecific(pthread_key_t key, const void* value) {
  const int r = real().setspecific(key, value);
  // A library's key (most calls: libraries keep per-thread state this way) costs no lock. The
  // marks change only when a key is made or deleted, never concurrently with its own use.
  if (r == 0 && records_process_state() && marked(live_process_state().keys.application, key)) {
    ProcessStateLocked l;
    note_thread_key_set(live_process_state().keys, key, on_main_thread(), on_openmp_pool_thread(), value != nullptr);
  }
  return r;
}
