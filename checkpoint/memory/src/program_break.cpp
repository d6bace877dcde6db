// The application's own use of the program break (sbrk, brk): the bytes it gets there lie in
// glibc's brk heap, which is library memory that a restarted process has with other contents (the
// fresh MPI library's blocks), so they cannot be put back. A checkpoint is refused while the
// application holds any (checkpoint/memory/README.md, "Refused, with the reason"). Only calls in
// application context count: glibc's malloc moves the break through its internal __sbrk, not
// through these symbols, and the application's own malloc goes to the arena.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>

#include <dlfcn.h>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

std::atomic<std::int64_t> g_net_bytes{0};  // sbrk increments the application made, summed
std::atomic<bool> g_brk_set{false};        // brk(addr): an amount we cannot know

using SbrkFn = void* (*)(intptr_t);
using BrkFn = int (*)(void*);
SbrkFn g_sbrk;
BrkFn g_brk;

void resolve() {
  if (g_sbrk) return;
  g_brk = reinterpret_cast<BrkFn>(dlsym(RTLD_NEXT, "brk"));
  g_sbrk = reinterpret_cast<SbrkFn>(dlsym(RTLD_NEXT, "sbrk"));
  if (!g_sbrk || !g_brk) fatal("cannot resolve libc's sbrk and brk");
}

void check() {
  char line[160];
  if (g_brk_set.load())
    refusal_add("the application set the program break (brk), whose memory is not carried");
  else if (const std::int64_t net = g_net_bytes.load(); net > 0) {
    std::snprintf(line, sizeof line,
                  "the application moved the program break by %lld bytes (sbrk), whose memory is not carried",
                  static_cast<long long>(net));
    refusal_add(line);
  }
}

__attribute__((constructor(101))) void init() {
  resolve();
  register_refusal_check(check);
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API void* sbrk(intptr_t increment) noexcept {
  resolve();
  void* old = g_sbrk(increment);
  if (old != reinterpret_cast<void*>(-1) && increment != 0 && app_context()) g_net_bytes.fetch_add(increment);
  return old;
}

YK_C_API int brk(void* addr) noexcept {
  resolve();
  const int rc = g_brk(addr);
  if (rc == 0 && app_context()) g_brk_set.store(true);
  return rc;
}
