#pragma once
// libc process state the application owns (checkpoint/memory/README.md, "The application's process
// state"): working directory, umask, signal dispositions, mask, pending signals and alternate stack,
// interval timers, exit handlers, thread-specific data keys, resource limits, locale, strtok's and
// getopt's positions, errno. Interposers in signal_state.cpp, exit_handlers.cpp, libc_state.cpp,
// thread_key_calls.cpp and resource_limit_calls.cpp record what the application sets; the capture saves it as
// the process_state area (after the mappings table, so a restore can refuse before it modifies
// anything); after a restore has jumped back, it is replayed in the fresh process.
//
// What is recorded, and why only that: code before the restore point runs again in a restarted
// process (constructors, and in the product the application's code before MPI_Init), and sets
// again whatever it set the first time. So a registration (a handler, an atexit function, a
// setlocale) made before the restore point must NOT be replayed — replaying it would run an exit
// handler twice, or put an application handler back over one MPI_Init installed after it. The
// embedding library therefore calls yk_mem_restore_point() at its restore point in every
// incarnation (the shim after PMPI_Init, the test driver where it would restore): that forgets
// everything recorded so far. In a restarted process the restore replaces the record with the
// image's, which holds exactly what the first incarnation set after its restore point. strtok's
// position and errno are data, not registrations: they are never forgotten.
#include <signal.h>
#include <sys/time.h>

#include <cstddef>
#include <cstdint>

#include "checkpoint/memory/areas.hpp"
#include "checkpoint/memory/src/environment.hpp"
#include "checkpoint/memory/src/jmp_bufs.hpp"
#include "checkpoint/memory/src/memory_streams.hpp"
#include "checkpoint/memory/src/openmp_pool_signals.hpp"
#include "checkpoint/memory/src/resource_limits.hpp"
#include "checkpoint/memory/src/thread_keys.hpp"
#include "checkpoint/memory/src/waiting_signals.hpp"

namespace yadokari::memory {

inline constexpr int kMaxSignalActions = 64;
inline constexpr int kMaxExitHandlers = 64;
inline constexpr int kMaxLocaleCalls = 16;
inline constexpr std::size_t kCwdMax = 4096;

struct SavedAction {
  std::int32_t signal;
  std::int32_t pad;
  struct sigaction action;
};

enum class ExitKind : std::uint32_t { cxa_atexit = 1, on_exit = 2, at_quick_exit = 3 };
struct ExitHandler {
  ExitKind kind;
  std::uint32_t pad;
  std::uint64_t function, argument, dso;  // as registered (addresses are the same after a restart)
};

struct LocaleCall {
  std::int32_t category;
  char name[512];  // what setlocale returned: the resolved name, independent of the environment
};

struct ProcessState {
  char magic[8];
  std::uint32_t size;
  std::int32_t errno_value;
  std::uint32_t have_cwd, have_umask, have_mask, have_altstack;
  std::uint32_t umask_value;
  std::uint32_t have_timer[3];  // ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF
  struct itimerval timers[3];   // remaining time and interval at the checkpoint
  sigset_t mask;
  sigset_t pending;  // SIGALRM, if the application thread had it blocked and it waited (sent again by pthread_kill)
  stack_t altstack;
  std::uint64_t strtok_next;
  // getopt's globals (copy-relocated into the executable, so libc's own are these): a restarted
  // process would start over at optind 1. Its hidden position inside "-abc" is not readable.
  std::int32_t getopt_ind, getopt_err, getopt_opt, pad5;
  std::uint64_t getopt_arg;  // optarg: into argv, which the args region carries
  std::uint32_t action_count, exit_count, locale_count, overflow;
  std::uint32_t waiting_count, pad;                 // the other blocked signals that waited, each instance
  siginfo_t waiting[kMaxWaitingSignals];            // with its siginfo, in delivery order (waiting_signals.hpp)
  std::uint64_t waiting_in_process;                 // bit i: waiting[i] waited in the process's queue
  std::uint32_t memory_stream_count, pad2;          // streams without a descriptor (memory_streams.hpp)
  std::uint64_t memory_streams[kMaxMemoryStreams];  // their FILEs, newest first
  std::uint64_t pointer_guard;        // the capturing process's: their cookie functions are mangled with it
  std::uint32_t jmp_buf_count, pad3;  // setjmp buffers (jmp_bufs.hpp), mangled with it too
  JmpBufRecord jmp_bufs[kMaxJmpBufs];
  std::uint32_t pool_mask_count, pad4;        // the OpenMP pool threads' masks (openmp_pool_signals.hpp)
  std::uint64_t pool_masks[kMaxPoolThreads];  // oldest thread first, bit sig-1
  EnvChanges env;                             // the variables the application changed (environment.hpp)
  ThreadKeys keys;                            // thread-specific data keys (thread_keys.hpp)
  ResourceLimits limits;                      // setrlimit/prlimit (resource_limits.hpp)
  SavedAction actions[kMaxSignalActions];     // in the order they were (last) set
  ExitHandler exits[kMaxExitHandlers];        // in registration order
  LocaleCall locales[kMaxLocaleCalls];
  char cwd[kCwdMax];
};

// The live record (interposers write it under process_state_lock()).
ProcessState& live_process_state();
void process_state_lock();
void process_state_unlock();
struct ProcessStateLocked {
  ProcessStateLocked() { process_state_lock(); }
  ~ProcessStateLocked() { process_state_unlock(); }
  ProcessStateLocked(const ProcessStateLocked&) = delete;
  ProcessStateLocked& operator=(const ProcessStateLocked&) = delete;
};

// Whether a call made now is recorded: the application's, after the restore point.
bool records_process_state();

// Capture: the area (errno is the caller's at the checkpoint call).
bool capture_process_state(AreaSink& sink, int errno_value);
// Restore, before anything is modified: the image's record fits this process (its working
// directory exists...). False with one line in `why` otherwise.
bool prepare_process_state(const void* data, std::size_t len, char* why, std::size_t why_len);
// In the restarted process, after the jump back (never before: a timer must not fire into
// half-restored memory): the record becomes the live one and is applied; errno last.
void replay_process_state();

// Replays of the parts, each in its own file.
void replay_signal_state(const ProcessState& s);   // actions, mask, alternate stack (signal_state.cpp)
void replay_timers(const ProcessState& s);         // signal_state.cpp
void replay_exit_handlers(const ProcessState& s);  // exit_handlers.cpp
void replay_libc_state(const ProcessState& s);     // cwd, umask, locale (libc_state.cpp)
bool capture_pending_signals(ProcessState& s);     // the mask and waiting signals (signal_state.cpp)
void capture_timers(ProcessState& s);              // after the pending signals (signal_state.cpp)

}  // namespace yadokari::memory
