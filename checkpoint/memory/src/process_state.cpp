// The application's libc process state across a restart: see process_state.hpp.
#include "checkpoint/memory/src/process_state.hpp"

#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/memory.h"
#include "common/export.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "checkpoint/memory/src/standard_fds.hpp"

namespace yadokari::memory {
namespace {

constexpr char kMagic[8] = {'Y', 'K', 'P', 'R', 'O', 'C', '0', '9'};

ProcessState g_live;
ProcessState g_out;       // the capture's copy (.bss: not on the stack being captured)
ProcessState g_incoming;  // the image's, between the restore's checks and the replay
bool g_replay_pending;
std::atomic<bool> g_lock{false};

void check_for_capture() {
  ProcessStateLocked l;
  if (g_live.overflow)
    refusal_add("the application registered more signal handlers, exit handlers or setlocale calls than are carried");
  char line[200];
  if (!thread_keys_carried(g_live.keys, line, sizeof line)) refusal_add(line);
  char cwd[kCwdMax];
  if (g_live.have_cwd && !getcwd(cwd, sizeof cwd))
    refusal_add("the application's working directory cannot be named (deleted?): ", std::strerror(errno));
}

__attribute__((constructor)) void register_check() { register_refusal_check(check_for_capture); }

}  // namespace

ProcessState& live_process_state() { return g_live; }
void process_state_lock() {
  while (g_lock.exchange(true, std::memory_order_acquire))
    while (g_lock.load(std::memory_order_relaxed)) {
    }
}
void process_state_unlock() { g_lock.store(false, std::memory_order_release); }

bool records_process_state() { return use_arena(); }

bool capture_process_state(AreaSink& sink, int errno_value) {
  {
    ProcessStateLocked l;
    g_out = g_live;
  }
  std::memcpy(g_out.magic, kMagic, sizeof kMagic);
  g_out.size = sizeof g_out;
  g_out.errno_value = errno_value;
  if (g_out.have_cwd && !getcwd(g_out.cwd, sizeof g_out.cwd)) return false;
  if (!capture_pending_signals(g_out)) return false;
  g_out.memory_stream_count = list_memory_streams(g_out.memory_streams, kMaxMemoryStreams);
  g_out.pointer_guard = pointer_guard();
  g_out.getopt_ind = optind;
  g_out.getopt_err = opterr;
  g_out.getopt_opt = optopt;
  g_out.getopt_arg = reinterpret_cast<std::uint64_t>(optarg);
  if (g_out.memory_stream_count > kMaxMemoryStreams) return false;  // the check refused it already
  g_out.jmp_buf_count = list_jmp_bufs(g_out.jmp_bufs, kMaxJmpBufs);
  if (g_out.jmp_buf_count > kMaxJmpBufs) return false;  // refused by the check as well
  g_out.pool_mask_count = openmp_pool_masks(g_out.pool_masks, kMaxPoolThreads);
  if (!capture_env_changes(g_out.env)) return false;  // refused by the check as well
  capture_timers(g_out);
  read_thread_key_values(g_out.keys);  // the capture runs on the main thread
  read_resource_limits(g_out.limits);
  return sink.area(AreaKind::process_state, 0, sizeof g_out, 0, "application process state", &g_out);
}

bool prepare_process_state(const void* data, std::size_t len, char* why, std::size_t why_len) {
  const auto* s = static_cast<const ProcessState*>(data);
  if (len != sizeof(ProcessState) || std::memcmp(s->magic, kMagic, sizeof kMagic) != 0 || s->size != len ||
      s->action_count > kMaxSignalActions || s->waiting_count > kMaxWaitingSignals ||
      s->memory_stream_count > kMaxMemoryStreams || s->jmp_buf_count > kMaxJmpBufs ||
      s->pool_mask_count > kMaxPoolThreads || s->env.count > kMaxEnvNames || s->env.text[kEnvTextMax - 1] != '\0' ||
      s->exit_count > kMaxExitHandlers || s->locale_count > kMaxLocaleCalls) {
    std::snprintf(why, why_len, "the image's process state is malformed");
    return false;
  }
  if (!thread_keys_fit(s->keys, why, why_len)) return false;
  if (!resource_limits_fit(s->limits, why, why_len)) return false;
  struct stat st {};
  if (s->have_cwd && (stat(s->cwd, &st) != 0 || !S_ISDIR(st.st_mode))) {
    std::snprintf(why, why_len, "the application's working directory %s does not exist in this process", s->cwd);
    return false;
  }
  g_incoming = *s;
  g_replay_pending = true;
  return true;
}

void replay_process_state() {
  if (!g_replay_pending) return;
  g_replay_pending = false;
  {
    ProcessStateLocked l;
    g_live = g_incoming;
  }
  LibraryScope scope;  // setlocale and friends allocate: from glibc, like the fresh libc's state
  relink_memory_streams(g_incoming.memory_streams, g_incoming.memory_stream_count, g_incoming.pointer_guard);
  remangle_jmp_bufs(g_incoming.jmp_bufs, g_incoming.jmp_buf_count, g_incoming.pointer_guard);
  expect_openmp_pool_masks(g_incoming.pool_masks, g_incoming.pool_mask_count);
  replay_env_changes(g_incoming.env);
  replay_thread_keys(g_incoming.keys);
  replay_resource_limits(g_incoming.limits);
  optind = g_incoming.getopt_ind;
  opterr = g_incoming.getopt_err;
  optopt = g_incoming.getopt_opt;
  optarg = reinterpret_cast<char*>(g_incoming.getopt_arg);
  replay_libc_state(g_incoming);
  replay_signal_state(g_incoming);
  replay_exit_handlers(g_incoming);
  replay_timers(g_incoming);  // last: handlers are in place before a tick can arrive
  errno = g_incoming.errno_value;
}

}  // namespace yadokari::memory

// The embedding library's restore point, in every incarnation (process_state.hpp explains why).
YK_C_API void yk_mem_restore_point(void) {
  using namespace yadokari::memory;
  g_past_restore_point.store(true);
  note_standard_fds();
  ProcessStateLocked l;
  ProcessState& s = g_live;
  s.have_cwd = s.have_umask = s.have_mask = s.have_altstack = 0;
  s.have_timer[0] = s.have_timer[1] = s.have_timer[2] = 0;
  s.action_count = s.exit_count = s.locale_count = s.overflow = 0;
  forget_thread_key_records(s.keys);
  s.limits = ResourceLimits{};
}
