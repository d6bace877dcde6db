// The application's CPU-time clocks across a restart: see cpu_clocks.hpp.
#include "checkpoint/memory/src/cpu_clocks.hpp"

#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

#include "checkpoint/memory/memory.h"
#include "common/export.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/next_symbol.hpp"
#include "checkpoint/memory/src/routing.hpp"

namespace yadokari::memory {
namespace {

constexpr std::int64_t kNsPerSec = 1'000'000'000;

// One instant of every corrected clock, in nanoseconds.
struct CpuClocks {
  std::int64_t process = 0;      // CLOCK_PROCESS_CPUTIME_ID (also clock())
  std::int64_t thread = 0;       // CLOCK_THREAD_CPUTIME_ID of the application thread
  std::int64_t self_user = 0;    // getrusage(RUSAGE_SELF), also times()
  std::int64_t self_system = 0;  //
  std::int64_t thread_user = 0;  // getrusage(RUSAGE_THREAD) of the application thread
  std::int64_t thread_system = 0;
};

struct Real {
  int (*clock_gettime)(clockid_t, struct timespec*);
  int (*getrusage)(int, struct rusage*);
  clock_t (*times)(struct tms*);
} g_real_clocks;

CpuClocks g_at_checkpoint;       // carried (yk_mem_carry): what the application saw at the checkpoint
CpuClocks g_offset;              // this process's correction; zero until a restart
bool g_corrected;                // g_offset is not zero
long g_ticks_per_second;         // times()' unit
YK_TLS bool t_thread_corrected;  // this thread is the application thread of a restarted process

constexpr const char* kUnresolved = "cannot resolve libc's clock_gettime/getrusage/times";

// Resolved at load time: nothing needed after a restore may be resolved lazily.
__attribute__((constructor(101))) void resolve() {
  if (g_real_clocks.times) return;
  Real r{};
  resolve_next(r.clock_gettime, "clock_gettime", kUnresolved);
  resolve_next(r.getrusage, "getrusage", kUnresolved);
  resolve_next(r.times, "times", kUnresolved);
  g_ticks_per_second = sysconf(_SC_CLK_TCK);
  g_real_clocks = r;
}

__attribute__((constructor(102))) void carry() {
  yk_mem_carry(&g_at_checkpoint, sizeof g_at_checkpoint, "yadokari-cpu-clocks");
}

const Real& real() {
  if (!g_real_clocks.times) resolve();
  return g_real_clocks;
}

std::int64_t ns(const timespec& t) { return t.tv_sec * kNsPerSec + t.tv_nsec; }
std::int64_t ns(const timeval& t) { return t.tv_sec * kNsPerSec + t.tv_usec * 1000; }
timespec to_timespec(std::int64_t v) { return {static_cast<time_t>(v / kNsPerSec), static_cast<long>(v % kNsPerSec)}; }
timeval to_timeval(std::int64_t v) {
  return {static_cast<time_t>(v / kNsPerSec), static_cast<suseconds_t>(v % kNsPerSec / 1000)};
}

// The raw clocks of this process and thread, uncorrected.
CpuClocks read_raw() {
  CpuClocks c;
  timespec t{};
  if (real().clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) == 0) c.process = ns(t);
  if (real().clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0) c.thread = ns(t);
  rusage u{};
  if (real().getrusage(RUSAGE_SELF, &u) == 0) c.self_user = ns(u.ru_utime), c.self_system = ns(u.ru_stime);
  if (real().getrusage(RUSAGE_THREAD, &u) == 0) c.thread_user = ns(u.ru_utime), c.thread_system = ns(u.ru_stime);
  return c;
}

// A correction never makes a clock negative (an image from a process that had used less CPU
// than this one has at its restart point cannot, but the sum is kept sane regardless).
std::int64_t corrected(std::int64_t raw, std::int64_t offset) { return raw + offset > 0 ? raw + offset : 0; }

}  // namespace

void note_cpu_clocks() {
  CpuClocks raw = read_raw();
  g_at_checkpoint = {raw.process + g_offset.process,         raw.thread + g_offset.thread,
                     raw.self_user + g_offset.self_user,     raw.self_system + g_offset.self_system,
                     raw.thread_user + g_offset.thread_user, raw.thread_system + g_offset.thread_system};
}

void continue_cpu_clocks() {
  CpuClocks raw = read_raw();
  const CpuClocks& c = g_at_checkpoint;
  g_offset = {c.process - raw.process,         c.thread - raw.thread,           c.self_user - raw.self_user,
              c.self_system - raw.self_system, c.thread_user - raw.thread_user, c.thread_system - raw.thread_system};
  g_corrected = true;
  t_thread_corrected = true;
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int clock_gettime(clockid_t id, struct timespec* ts) {
  int r = real().clock_gettime(id, ts);
  if (r != 0 || !g_corrected) return r;
  if (id == CLOCK_PROCESS_CPUTIME_ID)
    *ts = to_timespec(corrected(ns(*ts), g_offset.process));
  else if (id == CLOCK_THREAD_CPUTIME_ID && t_thread_corrected)
    *ts = to_timespec(corrected(ns(*ts), g_offset.thread));
  return r;
}

// glibc's clock() calls its internal clock_gettime, which this file does not see: answered here.
YK_C_API clock_t clock(void) {
  timespec t{};
  if (real().clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return static_cast<clock_t>(-1);
  std::int64_t v = g_corrected ? corrected(ns(t), g_offset.process) : ns(t);
  return static_cast<clock_t>(v / (kNsPerSec / CLOCKS_PER_SEC));
}

YK_C_API int getrusage(int who, struct rusage* usage) {
  int r = real().getrusage(who, usage);
  if (r != 0 || !g_corrected) return r;
  if (who == RUSAGE_SELF) {
    usage->ru_utime = to_timeval(corrected(ns(usage->ru_utime), g_offset.self_user));
    usage->ru_stime = to_timeval(corrected(ns(usage->ru_stime), g_offset.self_system));
  } else if (who == RUSAGE_THREAD && t_thread_corrected) {
    usage->ru_utime = to_timeval(corrected(ns(usage->ru_utime), g_offset.thread_user));
    usage->ru_stime = to_timeval(corrected(ns(usage->ru_stime), g_offset.thread_system));
  }
  return r;
}

YK_C_API clock_t times(struct tms* buf) {
  clock_t r = real().times(buf);
  if (r == static_cast<clock_t>(-1) || !buf || !g_corrected) return r;
  auto add = [](clock_t v, std::int64_t offset) {
    std::int64_t t = static_cast<std::int64_t>(v) + offset * g_ticks_per_second / kNsPerSec;
    return static_cast<clock_t>(t > 0 ? t : 0);
  };
  buf->tms_utime = add(buf->tms_utime, g_offset.self_user);
  buf->tms_stime = add(buf->tms_stime, g_offset.self_system);
  return r;
}
