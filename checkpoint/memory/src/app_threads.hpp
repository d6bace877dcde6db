#pragma once
// The table of the application's threads (threads.cpp keeps it; thread_park.cpp stops the
// threads at a checkpoint, thread_restart.cpp starts them again after a restart). A slot is taken
// before the thread exists, so a checkpoint right after pthread_create returns sees it, and is
// given back when the thread's stack is: joined, or detached and gone.
#include <pthread.h>

#include <atomic>
#include <cstdint>

#include "checkpoint/memory/src/routing.hpp"

namespace yadokari::memory {

struct AppThread {
  std::atomic<bool> used;
  std::atomic<bool> running;  // until the start routine returned, pthread_exit or cancellation
  std::atomic<int> tid;       // 0 until the thread runs
  void* (*fn)(void*);
  void* arg;
  bool openmp_pool;  // created by libgomp or libomp: idle between regions, not carried
  bool carried;      // created after the restore point, on a stack a checkpoint carries
  bool own_stack;    // the layer mapped its stack (and unmaps it when the slot is given back)
  std::atomic<bool> detached;
  std::atomic<bool> returned;          // `result` is what it returned or gave pthread_exit
  std::uint64_t seq;                   // creation order
  std::uint64_t map_lo, map_hi;        // own stacks: the mapping, guard included
  std::uint64_t stack_lo, stack_size;  // as given to pthread_create (pthread_attr_setstack)
  std::uint64_t descriptor;            // its pthread_t: glibc's descriptor, at the top of that stack
  std::uint64_t entry_sp;              // stack pointer at the call of the start routine
  std::uint64_t result;
  std::atomic<int> safe_waits;      // nesting of the waits a thread is carried from (thread_wait_calls.cpp)
  std::uint64_t wait_caller;        // the code that called the outermost of them
  std::atomic<std::uint32_t> park;  // thread_park.cpp: the park request's state
  int park_index;                   // its record in the park's table
};

inline constexpr int kMaxThreads = 256;
AppThread* app_threads();  // kMaxThreads slots

// The calling thread's slot, or -1 (main's thread, a library's thread, an untracked one).
extern YK_TLS int t_slot;
// Parks this thread went through (thread_park.cpp): a wait the park signal interrupted goes on.
extern YK_TLS std::uint32_t t_parks;

// Around the waits a thread is carried from (pthread_cond_wait, pthread_mutex_lock, sem_wait,
// pthread_join, nanosleep...): the park handler may stop the thread inside libc there, since all
// their state is in the application's memory and the kernel's wait is simply made again — if the
// application's code called the wait (`caller`: the interposer's return address), not a library
// whose state is fresh after a restart. By slot, not by pointer: after a restart the frame that
// leaves the wait belongs to another slot.
struct SafeWait {
  explicit SafeWait(const void* caller) {
    if (t_slot < 0) return;
    AppThread& t = app_threads()[t_slot];
    if (t.safe_waits.fetch_add(1, std::memory_order_relaxed) == 0)
      t.wait_caller = reinterpret_cast<std::uint64_t>(caller);
  }
  ~SafeWait() {
    if (t_slot >= 0) app_threads()[t_slot].safe_waits.fetch_sub(1, std::memory_order_relaxed);
  }
  SafeWait(const SafeWait&) = delete;
  SafeWait& operator=(const SafeWait&) = delete;
};

// libc's pthread_create (threads.cpp resolves it).
int real_pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg);
// A slot for a thread about to be created (-1 when the table is full: warned once).
int take_thread_slot(void* (*fn)(void*), void* arg, bool openmp_pool);
// The start routine every tracked thread runs through; `resume` (thread_restart.cpp) non-null for a
// thread started again after a restart.
struct ThreadStart {
  void* (*fn)(void*);
  void* arg;
  bool app;
  int slot;      // -1: not tracked
  void* resume;  // thread_restart.cpp's ResumeInfo, or nullptr
};
void* thread_start(void* start);
// "worker in /path/prog" (or "0x1189 in /path/prog" when not in the dynamic symbol table).
void describe_code_address(const void* address, char* out, unsigned long len);

}  // namespace yadokari::memory
