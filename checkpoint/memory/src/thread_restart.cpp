// Starting the carried threads again after a restart (thread_restart.hpp).
#include "checkpoint/memory/src/thread_restart.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/src/app_threads.hpp"
#include "checkpoint/memory/src/context.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/thread_keys.hpp"
#include "checkpoint/memory/src/thread_park.hpp"

extern "C" void __libc_free(void*);
extern "C" void* __libc_malloc(std::size_t);

namespace yadokari::memory {
namespace {

// Below the handler's saved stack pointer: what the handler's call of yk_ctx_save may use.
constexpr std::uint64_t kBelowSaved = 256;
// The stack the new thread copies its frames back from: below them on its own stack when there
// is room, else from the heap (kept: the thread never leaves it by a return).
constexpr std::uint64_t kCopyStack = 64 * 1024;

// What the new thread needs, followed by the bytes it copies back: its frames
// [copy_lo, rec.entry_sp), then each TLS block of the table.
struct ResumeInfo {
  CarriedThread rec;
  std::uint64_t copy_lo, copy_len;
  std::uint32_t tls_count, pad;
  ThreadTlsBlock tls[kMaxThreadTlsBlocks];
};

unsigned char* bytes_of(ResumeInfo* info) { return reinterpret_cast<unsigned char*>(info + 1); }
void* at(std::uint64_t address) { return reinterpret_cast<void*>(address); }

[[noreturn]] void copy_back_and_resume(void* p) {
  auto* info = static_cast<ResumeInfo*>(p);
  AppThread& t = app_threads()[t_slot];
  if (t.entry_sp != info->rec.entry_sp)
    fatal("a thread started again after a restart did not reach its start routine at the first run's stack pointer");
  const unsigned char* from = bytes_of(info);
  std::memcpy(at(info->copy_lo), from, info->copy_len);
  from += info->copy_len;
  for (std::uint32_t i = 0; i < info->tls_count; ++i) {
    std::memcpy(at(info->rec.descriptor - info->tls[i].below_tp), from, info->tls[i].size);
    from += info->tls[i].size;
  }
  for (std::uint32_t i = 0; i < info->rec.key_count; ++i)
    real_pthread_setspecific(static_cast<unsigned>(info->rec.keys[i][0]), at(info->rec.keys[i][1]));
  t.wait_caller = info->rec.wait_caller;
  t.safe_waits.store(info->rec.safe_waits);
  t_parks = info->rec.parks;
  const Context ctx = info->rec.ctx;
  __libc_free(info);
  yk_ctx_resume(&ctx, yk_read_canary());
}

ResumeInfo* prepare(const CarriedThread& rec, const CarriedThreads& table) {
  std::uint64_t copy_lo = 0, copy_len = 0, tls_len = 0;
  if (!rec.ended) {
    copy_lo = rec.ctx.rsp - kBelowSaved;
    if (copy_lo < rec.stack_lo || rec.entry_sp <= copy_lo || rec.entry_sp > rec.stack_lo + rec.stack_size)
      fatal("a carried thread's saved stack pointer is outside its stack");
    copy_len = rec.entry_sp - copy_lo;
    for (std::uint32_t i = 0; i < table.tls_count; ++i) tls_len += table.tls[i].size;
  }
  auto* info = static_cast<ResumeInfo*>(__libc_malloc(sizeof(ResumeInfo) + copy_len + tls_len));
  if (!info) fatal("out of memory starting the application's threads again");
  std::memset(info, 0, sizeof *info);
  info->rec = rec;
  if (rec.ended) return info;
  info->copy_lo = copy_lo;
  info->copy_len = copy_len;
  info->tls_count = table.tls_count;
  unsigned char* to = bytes_of(info);
  // Set aside now: glibc's pthread_create initialises the TLS blocks, and the new thread's own
  // frames overwrite the top of the stack before it can copy.
  std::memcpy(to, at(copy_lo), copy_len);
  to += copy_len;
  for (std::uint32_t i = 0; i < table.tls_count; ++i) {
    info->tls[i] = table.tls[i];
    std::memcpy(to, at(rec.descriptor - table.tls[i].below_tp), table.tls[i].size);
    to += table.tls[i].size;
  }
  return info;
}

}  // namespace

void* resume_carried_thread(void* p) {
  auto* info = static_cast<ResumeInfo*>(p);
  if (info->rec.ended) {
    void* result = info->rec.returned ? at(info->rec.result) : PTHREAD_CANCELED;
    __libc_free(info);
    return result;
  }
  std::uint64_t top = (info->copy_lo - 4096) & ~std::uint64_t{15};
  if (top < info->rec.stack_lo + kCopyStack) {
    auto* stack = static_cast<unsigned char*>(__libc_malloc(kCopyStack));
    if (!stack) fatal("out of memory starting the application's threads again");
    top = (reinterpret_cast<std::uint64_t>(stack) + kCopyStack) & ~std::uint64_t{15};
  }
  yk_jump_to_stack(at(top), copy_back_and_resume, info);
}

void start_carried_threads_again() {
  const CarriedThreads& table = carried_threads();
  for (std::uint32_t i = 0; i < table.count; ++i) {
    const CarriedThread& rec = table.threads[i];
    if (rec.ended && rec.detached) {  // nobody joins it: only its stack came back
      if (rec.map_hi) munmap(at(rec.map_lo), rec.map_hi - rec.map_lo);
      continue;
    }
    ResumeInfo* info = prepare(rec, table);
    auto fn = reinterpret_cast<void* (*)(void*)>(rec.fn);
    const int slot = take_thread_slot(fn, at(rec.arg), false);
    if (slot < 0) fatal("the thread table is full while starting the application's threads again");
    AppThread& t = app_threads()[slot];
    t.carried = true;
    t.own_stack = rec.map_hi != 0;
    t.map_lo = rec.map_lo;
    t.map_hi = rec.map_hi;
    t.stack_lo = rec.stack_lo;
    t.stack_size = rec.stack_size;
    t.descriptor = rec.descriptor;
    t.detached.store(rec.detached != 0);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, at(rec.stack_lo), rec.stack_size);
    pthread_attr_setdetachstate(&attr, rec.detached ? PTHREAD_CREATE_DETACHED : PTHREAD_CREATE_JOINABLE);
    sigset_t all;
    sigfillset(&all);  // until the handler returns into the thread's code with its own mask
    pthread_attr_setsigmask_np(&attr, &all);
    auto* start = static_cast<ThreadStart*>(__libc_malloc(sizeof(ThreadStart)));
    if (!start) fatal("out of memory starting the application's threads again");
    *start = ThreadStart{fn, at(rec.arg), true, slot, info};
    pthread_t thread;
    const int rc = real_pthread_create(&thread, &attr, thread_start, start);
    pthread_attr_destroy(&attr);
    if (rc != 0) fatal("cannot start an application thread again after the restart");
    if (static_cast<std::uint64_t>(thread) != rec.descriptor)
      fatal("a thread started again after the restart did not get its first run's descriptor address");
  }
}

}  // namespace yadokari::memory
