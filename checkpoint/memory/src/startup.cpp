// Load time and main's start: ASLR off, fixed regions mapped, main run on the shim's stack.
#include <dlfcn.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>

#include "checkpoint/memory/memory.h"
#include "checkpoint/memory/src/args_region.hpp"
#include "checkpoint/memory/src/aslr.hpp"
#include "checkpoint/memory/src/context.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/fd_table.hpp"
#include "checkpoint/memory/src/identity.hpp"
#include "checkpoint/memory/src/linked_libraries.hpp"
#include "checkpoint/memory/src/layout.hpp"
#include "checkpoint/memory/src/process.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"
#include "common/parameters.hpp"

namespace yadokari::memory {
namespace {

using MainFn = int (*)(int, char**, char**);
MainFn g_real_main;

bool map_fixed(std::uintptr_t lo, std::size_t len, int flags) {
  void* p = mmap(reinterpret_cast<void*>(lo), len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE | flags, -1, 0);
  if (p == MAP_FAILED) return false;
  if (reinterpret_cast<std::uintptr_t>(p) != lo) {  // kernels before 4.17 ignore the flag
    munmap(p, len);
    return false;
  }
  return true;
}

// The stack gets the soft RLIMIT_STACK, as the kernel would give the initial stack.
bool map_app_stack() {
  struct rlimit rl {};
  std::size_t size = 8 * kMiB;
  if (getrlimit(RLIMIT_STACK, &rl) == 0) {
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > kStackWindow - kPage)
      size = kStackWindow - kPage;
    else
      size = rl.rlim_cur < 256 * 1024 ? 256 * 1024 : rl.rlim_cur;
  }
  size = (size + kPage - 1) & ~(kPage - 1);
  if (!map_fixed(kStackTop - size, size, MAP_STACK)) return false;
  g_stack_lo = kStackTop - size;
  return true;
}

ArgsRegion* g_args;

int app_main_entry(int argc, char** argv, char** envp) {  // on the application stack
  if (g_main_hook) g_main_hook();
  return g_real_main(argc, argv, envp);
}

int main_trampoline(int argc, char**, char**) {  // on the original stack, after the constructors
  return yk_run_on_stack(reinterpret_cast<void*>(kStackTop), app_main_entry, argc, g_args->argv, g_args->envp);
}

void atfork_prepare() { arena_lock(); }
void atfork_release() { arena_unlock(); }

// Priority 101: first of this object's constructors (the shim's own may already call yk_mem_*).
// Libraries the shim depends on ran theirs before; the executable's run later, in
// __libc_start_main.
__attribute__((constructor(101))) void load_time(int, char** argv, char**) {
  resolve_real_functions();
  const char* setting = std::getenv(yadokari::parameters::kMemory);
  if (setting && std::strcmp(setting, "off") == 0) return;
  if (!(setting && std::strcmp(setting, "on") == 0) && !yk_mem_wanted_by_default()) return;
  if (!ensure_no_aslr(argv)) return;
  if (!map_app_stack()) {
    say("cannot map the application stack at its fixed address; checkpoints disabled");
    return;
  }
  if (!Arena::create(kArenaBase, kArenaReserve)) {
    munmap(reinterpret_cast<void*>(g_stack_lo), kStackTop - g_stack_lo);
    say("cannot reserve the application arena at its fixed address; checkpoints disabled");
    return;
  }
  const char* restore = std::getenv(yadokari::parameters::kRestore);
  if (restore && *restore) g_restore_pending = true;
  pthread_atfork(atfork_prepare, atfork_release, atfork_release);
  g_enabled = true;
}

}  // namespace

bool extend_stack(std::uintptr_t lo) {
  lo &= ~(kPage - 1);
  if (lo >= g_stack_lo) return true;
  if (lo < kStackTop - kStackWindow || !map_fixed(lo, g_stack_lo - lo, MAP_STACK)) return false;
  g_stack_lo = lo;
  return true;
}

Arena* arena() { return g_enabled ? Arena::at(kArenaBase) : nullptr; }

void resolve_real_functions() {
  if (g_real.libc_start_main) return;
  auto next = [](const char* name) { return dlsym(RTLD_NEXT, name); };
  g_real.libc_start_main = reinterpret_cast<decltype(g_real.libc_start_main)>(next("__libc_start_main"));
  g_real.malloc_usable_size = reinterpret_cast<decltype(g_real.malloc_usable_size)>(next("malloc_usable_size"));
  resolve_fd_functions();
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

// The executable's entry calls this. In glibc >= 2.34 it also runs the executable's own
// constructors (ld.so ran the libraries' ones already), so from here on the main thread is the
// application: allocations of the executable's constructors (global std::vector, ...) go to the
// arena and are carried like the rest. main itself is substituted by the trampoline.
YK_C_API int __libc_start_main(int (*main)(int, char**, char**), int argc, char** argv, void (*init)(), void (*fini)(),
                               void (*rtld_fini)(), void* stack_end) {
  resolve_real_functions();
  if (g_enabled) {
    record_premain_objects();
    note_linked_libraries_at_main();
    g_args = copy_args(argc, argv, argv + argc + 1);
    if (!g_args) {
      say("cannot map the argument copy at its fixed address; checkpoints disabled");
      g_enabled = false;
    }
  }
  if (!g_enabled) return g_real.libc_start_main(main, argc, argv, init, fini, rtld_fini, stack_end);
  g_real_main = main;
  t_app = true;
  if (!g_restore_pending) g_arena_on.store(true);
  // The original argv: glibc derives the live environ from it.
  return g_real.libc_start_main(main_trampoline, argc, argv, init, fini, rtld_fini, stack_end);
}

YK_C_API int yk_mem_enabled(void) { return g_enabled ? 1 : 0; }
// Weak: the embedding library decides (the shim wants the layer only when checkpoints are
// configured; the test driver always).
extern "C" __attribute__((weak)) int yk_mem_wanted_by_default(void) { return 1; }

YK_C_API void yk_mem_enter_library(void) { ++t_depth; }
YK_C_API void yk_mem_leave_library(void) { --t_depth; }
YK_C_API void yk_mem_expect_restore(void) { g_restore_pending = true; }
YK_C_API void yk_mem_set_main_hook(void (*hook)(void)) { g_main_hook = hook; }
