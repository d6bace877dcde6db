#pragma once
// Stopping the application's carried threads for a checkpoint (checkpoint/memory/README.md,
// "Threads"). Each is sent a signal; its handler, on the thread's own stack, saves the thread's
// registers and waits until the capture is done. The handler accepts only a safe point: the
// thread in its own code (the executable or a library the layer carries) or inside one of the
// waits of thread_wait_calls.cpp, never inside an MPI call or other library code (whose state is
// fresh after a restart). A thread blocked in another system call is not signalled at all (the
// signal would make the call fail with EINTR); it is named instead, and so is one that was not at
// a safe point at any of the tries. The table of what was parked is carried (yk_mem_carry): the
// restart reads it to start the threads again (thread_restart.hpp).
#include <cstdint>

#include "checkpoint/memory/src/context.hpp"

namespace yadokari::memory {

inline constexpr int kMaxCarriedThreads = 64;
inline constexpr int kMaxCarriedThreadKeys = 16;
inline constexpr int kMaxThreadTlsBlocks = 16;

struct CarriedThread {
  std::uint64_t fn, arg;
  std::uint64_t map_lo, map_hi;        // own stacks: the mapping (guard included), else 0
  std::uint64_t stack_lo, stack_size;  // as pthread_create got them
  std::uint64_t descriptor;            // its pthread_t, at the top of that stack
  std::uint64_t entry_sp;              // stack pointer at the call of its start routine
  std::uint32_t detached, ended;       // ended: only its end is carried (a join still finds it)
  std::uint32_t returned, key_count;   // returned: `result` is what it returned or gave pthread_exit
  std::uint64_t result;
  Context ctx;                                   // where the park handler saved it
  std::int32_t safe_waits;                       // nesting of waits it was in (thread_wait_calls.cpp)
  std::uint64_t wait_caller;                     // the code that called the outermost
  std::uint32_t parks;                           // its t_parks after this park
  std::uint64_t pc;                              // where the signal found it
  std::uint64_t keys[kMaxCarriedThreadKeys][2];  // the application's thread-specific data: key, value
};

// A static TLS block the layer carries for every thread (the executable's, a carried library's),
// as its distance below the thread pointer (x86-64: the blocks lie below glibc's descriptor).
struct ThreadTlsBlock {
  std::uint64_t below_tp, size;
};

struct CarriedThreads {
  std::uint32_t count, tls_count;
  ThreadTlsBlock tls[kMaxThreadTlsBlocks];
  CarriedThread threads[kMaxCarriedThreads];
};

// The table of the last park (after a restore: the image's).
const CarriedThreads& carried_threads();

// Before the refusal checks: parks every carried thread, or adds one refusal line per thread that
// cannot be. True when threads were stopped (release_application_threads() must follow).
bool park_application_threads();
// After the capture (or its refusal): the parked threads go on.
void release_application_threads();

}  // namespace yadokari::memory
