// The application's thread-specific data keys (thread_keys.hpp): libc's functions, the record's
// notes, capture, checks and replay. The interposers are in thread_key_calls.cpp.
#include "checkpoint/memory/src/thread_keys.hpp"

#include <dlfcn.h>
#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "checkpoint/memory/src/diag.hpp"

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
int real_pthread_key_create(unsigned* key, void (*destructor)(void*)) { return real().key_create(key, destructor); }
int real_pthread_key_delete(unsigned key) { return real().key_delete(key); }
bool is_application_key(const ThreadKeys& keys, std::uint32_t key) { return marked(keys.application, key); }

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
