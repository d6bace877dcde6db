// Parking the application's carried threads at a checkpoint (thread_park.hpp).
#include "checkpoint/memory/src/thread_park.hpp"

#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "checkpoint/memory/memory.h"
#include "checkpoint/memory/src/app_threads.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/exe_layout.hpp"
#include "checkpoint/memory/src/linked_libraries.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"
#include "checkpoint/memory/src/process_state.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"

namespace yadokari::memory {

YK_TLS std::uint32_t t_parks;

namespace {

// AppThread::park
constexpr std::uint32_t kIdle = 0, kAsked = 1, kParked = 2, kNotSafe = 3;
constexpr int kTries = 500;                      // a thread outside a safe point is tried again this often,
constexpr long kPauseNs = 1000 * 1000;           // this long apart
constexpr long kAnswerNs = 1000L * 1000 * 1000;  // a signalled thread answers within a second

int park_signal() { return SIGRTMAX - 2; }

CarriedThreads g_carried;
std::atomic<std::uint32_t> g_release{0};
bool g_live_parked;  // this checkpoint parked running threads

struct CodeRange {
  std::uint64_t lo, hi;
};
constexpr int kMaxCodeRanges = 64;
CodeRange g_code[kMaxCodeRanges];  // the application's code: the executable, carried libraries
int g_code_count;
// Besides the application's code, what may call a wait a thread is carried from: libstdc++'s thin
// wrappers (std::condition_variable::wait, std::thread::join, std::this_thread::sleep_for).
CodeRange g_wrappers[kMaxCodeRanges];
int g_wrapper_count;
std::uint32_t g_app_keys[kMaxThreadKeys];
std::uint32_t g_app_key_count;

int has_tls(dl_phdr_info* info, std::size_t, void* data) {
  auto* lib = static_cast<std::pair<std::uint64_t, bool>*>(data);
  if (info->dlpi_addr != lib->first) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS && info->dlpi_phdr[i].p_memsz) lib->second = true;
  return 1;
}

// A parked thread's blocks of the libraries the application loaded after start are not carried
// (glibc allocates them per thread on first use, and the restarted thread's DTV is new): refused
// while such a thread runs, one line per library that has thread-local storage. Runs after the
// library table's own check (a constructor of priority 101) collected the libraries.
void check_loaded_library_tls() {
  if (!g_live_parked) return;
  const LibTable& libs = application_loaded_libraries();
  for (std::uint32_t i = 0; i < libs.count; ++i) {
    std::pair<std::uint64_t, bool> lib{libs.libs[i].base, false};
    dl_iterate_phdr(has_tls, &lib);
    if (lib.second)
      refusal_add("library ", libs.libs[i].path,
                  ", loaded after start, has thread-local storage, which is not carried for threads other than the "
                  "main one");
  }
}

__attribute__((constructor)) void carry_table() {
  yk_mem_carry(&g_carried, sizeof g_carried, "application threads");
  register_refusal_check(check_loaded_library_tls);
}

long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value, const timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, timeout, nullptr, 0);
}

bool in_ranges(const CodeRange* ranges, int count, std::uint64_t pc) {
  for (int i = 0; i < count; ++i)
    if (pc >= ranges[i].lo && pc < ranges[i].hi) return true;
  return false;
}

bool in_application_code(std::uint64_t pc) { return in_ranges(g_code, g_code_count, pc); }

// Inside a wait the application's code (or a thin wrapper of libstdc++'s) called.
bool in_carried_wait(const AppThread& t) {
  if (t.safe_waits.load() == 0) return false;
  return in_application_code(t.wait_caller) || in_ranges(g_wrappers, g_wrapper_count, t.wait_caller);
}

void answer(AppThread& t, std::uint32_t state) {
  std::uint32_t asked = kAsked;
  if (t.park.compare_exchange_strong(asked, state)) futex(&t.park, FUTEX_WAKE_PRIVATE, 1, nullptr);
}

// On the thread, at the signal: a safe point saves the registers and waits for the release; a
// thread started again after a restart comes back here (yk_ctx_save returns 1) and goes on.
void on_park_signal(int, siginfo_t*, void* context) {
  const int saved_errno = errno;
  if (t_slot < 0) return;
  AppThread& t = app_threads()[t_slot];
  if (t.park.load() != kAsked || t.park_index < 0) return;  // a late signal of a park given up
  ++t_parks;  // a wait this signal cut short goes on, wherever the thread was (thread_wait_calls.cpp)
  CarriedThread& rec = g_carried.threads[t.park_index];
  const auto* uc = static_cast<const ucontext_t*>(context);
  rec.pc = static_cast<std::uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
  if (t_depth != 0 || (!in_carried_wait(t) && !in_application_code(rec.pc))) {
    answer(t, kNotSafe);
    errno = saved_errno;
    return;
  }
  rec.key_count = 0;
  for (std::uint32_t i = 0; i < g_app_key_count; ++i) {
    void* value = pthread_getspecific(g_app_keys[i]);
    if (!value) continue;
    if (rec.key_count < kMaxCarriedThreadKeys) {
      rec.keys[rec.key_count][0] = g_app_keys[i];
      rec.keys[rec.key_count][1] = reinterpret_cast<std::uint64_t>(value);
    }
    ++rec.key_count;
  }
  rec.entry_sp = t.entry_sp;  // the thread may have started after record() ran
  rec.descriptor = t.descriptor;
  rec.safe_waits = t.safe_waits.load();
  rec.wait_caller = t.wait_caller;
  rec.parks = t_parks;
  const std::uint32_t release = g_release.load();
  if (yk_ctx_save(&rec.ctx) != 0) {  // started again after a restart
    errno = saved_errno;
    return;
  }
  answer(t, kParked);
  while (g_release.load() == release) futex(&g_release, FUTEX_WAIT_PRIVATE, release, nullptr);
  errno = saved_errno;
}

// The signal's handler is the layer's; an application that took the signal for itself refuses.
bool install_handler() {
  struct sigaction now {};
  if (sigaction(park_signal(), nullptr, &now) != 0) return false;
  if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_park_signal) return true;
  if (!(now.sa_flags & SA_SIGINFO) && now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN) {
    char line[160];
    std::snprintf(line, sizeof line,
                  "the application handles signal %d, which the layer needs to stop its threads at a checkpoint",
                  park_signal());
    refusal_add(line);
    return false;
  }
  struct sigaction act {};
  act.sa_sigaction = on_park_signal;
  act.sa_flags = SA_SIGINFO | SA_RESTART;
  sigfillset(&act.sa_mask);
  return sigaction(park_signal(), &act, nullptr) == 0;
}

// Adds the object's executable segments to `ranges`.
void note_code(const dl_phdr_info* info, CodeRange* ranges, int& count) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && count < kMaxCodeRanges)
      ranges[count++] = {info->dlpi_addr + ph.p_vaddr, info->dlpi_addr + ph.p_vaddr + ph.p_memsz};
  }
}

int note_object(dl_phdr_info* info, std::size_t, void* data) {
  auto* tp = static_cast<std::uint64_t*>(data);
  const bool exe = !info->dlpi_name || !info->dlpi_name[0];
  if (!exe && std::strstr(info->dlpi_name, "/libstdc++.so")) {
    note_code(info, g_wrappers, g_wrapper_count);
    return 0;
  }
  if (!exe && !is_carried_linked_library(info->dlpi_addr)) return 0;
  note_code(info, g_code, g_code_count);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_TLS && info->dlpi_tls_data && g_carried.tls_count < kMaxThreadTlsBlocks)
      g_carried.tls[g_carried.tls_count++] = {*tp - reinterpret_cast<std::uint64_t>(info->dlpi_tls_data), ph.p_memsz};
  }
  return 0;
}

// What the handlers and the restart need: the application's code, its static TLS blocks (their
// place below the thread pointer is the same in every thread), the application's keys.
void note_application_layout() {
  std::uint64_t tp = 0;
  asm volatile("mov %%fs:0, %0" : "=r"(tp));
  g_code_count = g_wrapper_count = 0;
  g_carried.tls_count = 0;
  dl_iterate_phdr(note_object, &tp);
  g_app_key_count = 0;
  ProcessStateLocked l;
  const ThreadKeys& keys = live_process_state().keys;
  for (std::uint32_t k = 0; k < kThreadKeySlots && g_app_key_count < kMaxThreadKeys; ++k)
    if (is_application_key(keys, k)) g_app_keys[g_app_key_count++] = k;
}

void record(CarriedThread& rec, const AppThread& t) {
  std::memset(&rec, 0, sizeof rec);
  rec.fn = reinterpret_cast<std::uint64_t>(t.fn);
  rec.arg = reinterpret_cast<std::uint64_t>(t.arg);
  rec.map_lo = t.own_stack ? t.map_lo : 0;
  rec.map_hi = t.own_stack ? t.map_hi : 0;
  rec.stack_lo = t.stack_lo;
  rec.stack_size = t.stack_size;
  rec.descriptor = t.descriptor;
  rec.entry_sp = t.entry_sp;
  rec.detached = t.detached.load();
  rec.returned = t.returned.load();
  rec.result = t.result;
}

void name_thread(const AppThread& t, const char* what) {
  char routine[600], line[900];
  describe_code_address(reinterpret_cast<void*>(t.fn), routine, sizeof routine);
  std::snprintf(line, sizeof line, "thread %d (started at %s) %s", t.tid.load(), routine, what);
  refusal_add(line);
}

// The system call the thread is blocked in (/proc/self/task/<tid>/syscall), or -1 when it runs
// (or is stopped outside one).
long blocked_in(int tid, std::uint64_t& pc) {
  char path[64], text[256] = {};
  std::snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
  FILE* f = std::fopen(path, "r");
  if (!f) return -1;
  const bool got = std::fgets(text, sizeof text, f) != nullptr;
  std::fclose(f);
  if (!got || std::strncmp(text, "running", 7) == 0) return -1;
  char* end = nullptr;
  const long nr = std::strtol(text, &end, 10);
  // "nr a1 a2 a3 a4 a5 a6 sp pc"
  const char* p = end;
  for (int field = 0; field < 7 && p; ++field) p = std::strchr(p + 1, ' ');
  if (p) pc = std::strtoull(p + 1, nullptr, 16);
  return nr;
}

// One try at one thread: true once it is parked.
bool try_to_park(AppThread& t, long& syscall_nr) {
  std::uint64_t pc = 0;
  syscall_nr = blocked_in(t.tid.load(), pc);
  CarriedThread& rec = g_carried.threads[t.park_index];
  if (syscall_nr >= 0 && !in_carried_wait(t)) {
    rec.pc = pc;
    return false;
  }
  syscall_nr = -1;
  t.park.store(kAsked);
  if (syscall(SYS_tgkill, getpid(), t.tid.load(), park_signal()) != 0) {
    t.park.store(kIdle);
    return false;
  }
  timespec deadline{};
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += kAnswerNs / 1000000000L;
  for (;;) {
    const std::uint32_t state = t.park.load();
    if (state != kAsked) {
      if (state == kParked) return true;
      t.park.store(kIdle);
      return false;
    }
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec > deadline.tv_sec || (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)) break;
    const timespec wait{0, 10 * 1000 * 1000};
    futex(&t.park, FUTEX_WAIT_PRIVATE, kAsked, &wait);
  }
  std::uint32_t asked = kAsked;
  if (t.park.compare_exchange_strong(asked, kIdle)) {
    syscall_nr = -2;  // no answer
    return false;
  }
  return t.park.load() == kParked;
}

}  // namespace

const CarriedThreads& carried_threads() { return g_carried; }

bool park_application_threads() {
  g_carried.count = 0;
  g_live_parked = false;
  AppThread* threads = app_threads();
  int live = 0;
  for (int i = 0; i < kMaxThreads; ++i) {
    AppThread& t = threads[i];
    t.park_index = -1;
    if (!t.used.load() || !t.carried || t.openmp_pool) continue;
    if (g_carried.count == kMaxCarriedThreads) {
      refusal_add("the application has more than 64 threads, which are not carried");
      return false;
    }
    t.park_index = static_cast<int>(g_carried.count++);
    CarriedThread& rec = g_carried.threads[t.park_index];
    record(rec, t);
    rec.ended = !t.running.load();
    live += !rec.ended;
  }
  if (live == 0) return false;
  note_application_layout();
  if (!install_handler()) {
    if (!refusal_text()[0]) refusal_add("cannot install the handler that stops the application's threads");
    return false;
  }
  long last_call[kMaxThreads];
  int parked = 0;
  for (int attempt = 0; attempt < kTries && parked < live; ++attempt) {
    if (attempt) {
      const timespec pause{0, kPauseNs};
      nanosleep(&pause, nullptr);
    }
    for (int i = 0; i < kMaxThreads; ++i) {
      AppThread& t = threads[i];
      if (t.park_index < 0 || g_carried.threads[t.park_index].ended || t.park.load() == kParked) continue;
      if (try_to_park(t, last_call[i])) ++parked;
    }
  }
  for (int i = 0; i < kMaxThreads && parked < live; ++i) {
    AppThread& t = threads[i];
    if (t.park_index < 0 || g_carried.threads[t.park_index].ended || t.park.load() == kParked) continue;
    char what[800], where[600];
    describe_code_address(reinterpret_cast<void*>(g_carried.threads[t.park_index].pc), where, sizeof where);
    if (last_call[i] == -2)
      std::snprintf(what, sizeof what, "did not answer signal %d (blocked?), which is not carried", park_signal());
    else if (last_call[i] >= 0)
      std::snprintf(what, sizeof what,
                    "is blocked in system call %ld, which is not one of the waits a thread is carried from",
                    last_call[i]);
    else
      std::snprintf(what, sizeof what, "was in library code at every try (last in %s), which is not carried", where);
    name_thread(t, what);
  }
  for (int i = 0; i < kMaxThreads; ++i) {
    AppThread& t = threads[i];
    if (t.park_index < 0 || t.park.load() != kParked) continue;
    if (g_carried.threads[t.park_index].key_count > kMaxCarriedThreadKeys)
      name_thread(t, "has values for more than 16 thread-specific data keys, which are not carried");
  }
  g_live_parked = parked > 0;
  return parked > 0;
}

void release_application_threads() {
  for (int i = 0; i < kMaxThreads; ++i) app_threads()[i].park.store(kIdle);
  g_release.fetch_add(1);
  futex(&g_release, FUTEX_WAKE_PRIVATE, 0x7fffffff, nullptr);
}

}  // namespace yadokari::memory
