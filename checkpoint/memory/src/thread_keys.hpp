#pragma once
// The application's thread-specific data keys across a restart (checkpoint/memory/README.md, "The
// application's process state"). A key is libc state (its number allocated in libc's table, the
// main thread's values in libc's thread descriptor), which a fresh process does not have: before,
// a value the application stored with pthread_setspecific after the restore point read back as
// NULL after a restart (exit 0), and a key it had created was free again for the next
// pthread_key_create. Keys the application creates after the restore point are recorded with
// their destructor and made again at the same numbers in the restarted process; the main thread's
// values of the application's keys (made by its code, before or after the restore point) that it
// set after the restore point are read at the checkpoint and set again. Keys a library made (its
// constructor before main, or inside an MPI call) are the library's: a fresh library's values stay
// the fresh process's. Like every registration, what was done before the restore point is done
// again by the application's own code there (process_state.hpp).
#include <cstddef>
#include <cstdint>

namespace yadokari::memory {

inline constexpr std::uint32_t kMaxThreadKeys = 64;     // carried; more refuse the checkpoint
inline constexpr std::uint32_t kThreadKeySlots = 1024;  // PTHREAD_KEYS_MAX in glibc

struct ThreadKeyRecord {
  std::uint32_t key;
  std::uint32_t created;     // 1: the application created it after the restore point
  std::uint64_t destructor;  // as given to pthread_key_create (created keys)
  std::uint64_t value;       // the main thread's value at the checkpoint (set keys)
  std::uint32_t set, pad;    // 1: the application set its value on the main thread after the restore point
};

struct ThreadKeys {
  std::uint32_t count, overflow;
  ThreadKeyRecord keys[kMaxThreadKeys];               // in the order the application first created or set them
  std::uint64_t set_elsewhere[kThreadKeySlots / 64];  // bit k: key k given a value on a pool thread
  std::uint64_t application[kThreadKeySlots / 64];    // bit k: the application's code made key k
};

// libc's functions (thread_key_calls.cpp interposes them); pthread_setspecific also for the
// layer's own keys, which are never the application's.
// (The value is only stored, never read, as glibc declares it: else GCC takes a caller's
// uninitialised pointer for a read of it.)
__attribute__((access(none, 2))) int real_pthread_setspecific(unsigned key, const void* value);
int real_pthread_key_create(unsigned* key, void (*destructor)(void*));
int real_pthread_key_delete(unsigned key);
// Whether the application's code made `key` (its values may be carried).
bool is_application_key(const ThreadKeys& keys, std::uint32_t key);

// The live record (under the process state's lock): what the interposers noted. `recorded`: made
// after the restore point (made again at a restart); before it, the key is only marked as the
// application's (its code makes it again).
void note_thread_key_created(ThreadKeys& keys, std::uint32_t key, const void* destructor, bool recorded);
// `pool_thread`: set on an OpenMP pool thread, whose value the new pool of a restarted process
// would not have. A carried thread's values are read by its park handler (thread_park.cpp).
void note_thread_key_set(ThreadKeys& keys, std::uint32_t key, bool main_thread, bool pool_thread, bool non_null);
void note_thread_key_deleted(ThreadKeys& keys, std::uint32_t key);
// At the restore point: the records go, the marks of the application's keys stay.
void forget_thread_key_records(ThreadKeys& keys);

// The capture, on the main thread: the values of the set keys, read now.
void read_thread_key_values(ThreadKeys& keys);
// The refusal check: an application's key given a value on a pool thread, or too many keys. One
// line into `line` and false when the checkpoint must be refused.
bool thread_keys_carried(const ThreadKeys& keys, char* line, std::size_t line_len);

// The restore, before anything is modified: each created key is free in this process and each
// key only set exists. False with one line in `why` otherwise.
bool thread_keys_fit(const ThreadKeys& keys, char* why, std::size_t why_len);
// In the restarted process: the created keys made again at their numbers (unless the constructors
// of the libraries the restore loaded again made them already), then the values set.
void replay_thread_keys(const ThreadKeys& keys);

}  // namespace yadokari::memory
