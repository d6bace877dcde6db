// libc's syscall(), resolved once: the layer's own raw system calls go through it, around the
// interposer of syscall() (syscall_routing.cpp).
#include "checkpoint/memory/src/raw_syscalls.hpp"

#include <dlfcn.h>

#include "checkpoint/memory/src/diag.hpp"

namespace yadokari::memory {
namespace {

using Syscall = long (*)(long, ...);
Syscall g_real_syscall;

// Resolved at load time (docs/architecture.md, pitfall 8).
__attribute__((constructor(101))) void resolve() {
  g_real_syscall = reinterpret_cast<Syscall>(dlsym(RTLD_NEXT, "syscall"));
  if (!g_real_syscall) fatal("cannot resolve libc's syscall");
}

}  // namespace

long real_syscall(long number, long a1, long a2, long a3, long a4, long a5, long a6) {
  if (!g_real_syscall) resolve();  // a library constructor that ran before ours
  return g_real_syscall(number, a1, a2, a3, a4, a5, a6);
}

}  // namespace yadokari::memory
