// A dedicated thread rather than the control thread: the control thread blocks in zmq_poll for
// up to 500 ms and lives in runtime/control (shared with the fake shim); waking it every few ms
// would mean changing its loop for every embedder. This thread only sleeps, loads one atomic and
// reads the clock: at a 10 ms period that is 100 wakeups of ~2 us per second, < 0.1 % of a core
// per rank, and an epoch (>= 1 s) still gets >= 100 looks. Raw pthread, not std::thread: an app
// that exits without MPI_Finalize must not hit std::thread's terminate-if-joinable destructor.
#include "pmpi-layer/src/telemetry/compute_sampler.hpp"

#include "pmpi-layer/src/core/compute_clock.hpp"
#include "pmpi-layer/src/telemetry/call_counters.hpp"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <atomic>

namespace yadokari::shim {
namespace {

constexpr long kPeriodNanoseconds = 10 * 1000 * 1000;

ComputeClock g_clock;
std::atomic<bool> g_running{false};
std::atomic<bool> g_stop{false};
pthread_t g_thread{};
pid_t g_owner = 0;  // a forked child has no sampler thread to join

std::int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool outside_mpi() { return g_current_call.load(std::memory_order_relaxed) == Fn::none_; }

void* sample(void*) {
  g_clock.observe(now_ns(), outside_mpi());
  const timespec period{0, kPeriodNanoseconds};
  while (!g_stop.load(std::memory_order_relaxed)) {
    nanosleep(&period, nullptr);
    g_clock.observe(now_ns(), outside_mpi());
  }
  return nullptr;
}

}  // namespace

void start_compute_sampler() {
  if (g_running.load()) return;
  // Created inside the MPI_Init wrapper, so its few allocations go to glibc
  // (docs/architecture.md, pitfall 7); it never runs the application's signal handlers.
  sigset_t all, callers;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &callers);
  g_stop = false;
  const bool started = pthread_create(&g_thread, nullptr, sample, nullptr) == 0;
  pthread_sigmask(SIG_SETMASK, &callers, nullptr);
  if (!started) return;  // no measurement; the scheduler then has none for this rank
  g_owner = getpid();
  g_running = true;
}

void stop_compute_sampler() {
  if (!g_running.load() || getpid() != g_owner) return;
  g_stop = true;
  pthread_join(g_thread, nullptr);
  g_running = false;
}

double compute_seconds() { return g_running.load() ? g_clock.seconds() : -1.0; }

std::string node_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

}  // namespace yadokari::shim
