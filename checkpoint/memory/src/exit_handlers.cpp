// Exit handlers the application registers after the restore point (process_state.hpp): atexit()
// (glibc links it statically into the executable as a call of __cxa_atexit with the executable's
// __dso_handle), __cxa_atexit (also the destructors of C++ function-local statics, whose guard
// variables a restore brings back as "constructed"), on_exit, and the handlers quick_exit runs
// (at_quick_exit, linked into the executable the same way as a call of __cxa_at_quick_exit). They are recorded here and, in a
// restarted process, registered again after the restore in the same order, so each runs exactly
// once at exit. A fresh process's libc knows nothing of the old registrations: without this they
// would silently never run. The constructors of a library loaded after start run again when the
// restore loads it; what they register then is not passed on (it is in the record already, and
// the replay keeps the first run's order among the application's and the library's handlers,
// also those the library registers later, like the destructor of a function-local static).
#include <dlfcn.h>

#include "common/export.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"
#include "checkpoint/memory/src/process_state.hpp"

namespace yadokari::memory {
namespace {

struct Real {
  int (*cxa_atexit)(void (*)(void*), void*, void*);
  int (*on_exit)(void (*)(int, void*), void*);
  int (*cxa_at_quick_exit)(void (*)(void*), void*);
} g_real_exit;

__attribute__((constructor(101))) void resolve() {
  if (g_real_exit.on_exit) return;
  g_real_exit.cxa_atexit = reinterpret_cast<decltype(g_real_exit.cxa_atexit)>(dlsym(RTLD_NEXT, "__cxa_atexit"));
  g_real_exit.cxa_at_quick_exit =
      reinterpret_cast<decltype(g_real_exit.cxa_at_quick_exit)>(dlsym(RTLD_NEXT, "__cxa_at_quick_exit"));
  g_real_exit.on_exit = reinterpret_cast<decltype(g_real_exit.on_exit)>(dlsym(RTLD_NEXT, "on_exit"));
  if (!g_real_exit.cxa_atexit || !g_real_exit.cxa_at_quick_exit || !g_real_exit.on_exit)
    fatal("cannot resolve libc's __cxa_atexit/__cxa_at_quick_exit/on_exit");
}

const Real& real() {
  if (!g_real_exit.on_exit) resolve();
  return g_real_exit;
}

void record(ExitKind kind, const void* function, const void* argument, const void* dso) {
  ProcessStateLocked l;
  ProcessState& s = live_process_state();
  if (s.exit_count == kMaxExitHandlers) {
    s.overflow = 1;
    return;
  }
  s.exits[s.exit_count++] = {kind, 0, reinterpret_cast<std::uint64_t>(function),
                             reinterpret_cast<std::uint64_t>(argument), reinterpret_cast<std::uint64_t>(dso)};
}

}  // namespace

void replay_exit_handlers(const ProcessState& s) {
  for (std::uint32_t i = 0; i < s.exit_count; ++i) {
    const ExitHandler& h = s.exits[i];
    auto* argument = reinterpret_cast<void*>(h.argument);
    if (h.kind == ExitKind::on_exit)
      real().on_exit(reinterpret_cast<void (*)(int, void*)>(h.function), argument);
    else if (h.kind == ExitKind::at_quick_exit)
      real().cxa_at_quick_exit(reinterpret_cast<void (*)(void*)>(h.function), reinterpret_cast<void*>(h.dso));
    else
      real().cxa_atexit(reinterpret_cast<void (*)(void*)>(h.function), argument, reinterpret_cast<void*>(h.dso));
  }
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int __cxa_atexit(void (*function)(void*), void* argument, void* dso) {
  if (placing_library_at(reinterpret_cast<std::uint64_t>(dso))) return 0;
  int r = real().cxa_atexit(function, argument, dso);
  if (r == 0 && records_process_state())
    record(ExitKind::cxa_atexit, reinterpret_cast<const void*>(function), argument, dso);
  return r;
}

YK_C_API int on_exit(void (*function)(int, void*), void* argument) {
  // No DSO handle here, and the caller's address is not reliable (a constructor's last call is a
  // jump): the handler's own code tells whose it is.
  if (placing_library_at(reinterpret_cast<std::uint64_t>(function))) return 0;
  int r = real().on_exit(function, argument);
  if (r == 0 && records_process_state())
    record(ExitKind::on_exit, reinterpret_cast<const void*>(function), argument, nullptr);
  return r;
}

// glibc's at_quick_exit (libc_nonshared.a, linked into the executable) is a call of this.
YK_C_API int __cxa_at_quick_exit(void (*function)(void*), void* dso) {
  if (placing_library_at(reinterpret_cast<std::uint64_t>(dso))) return 0;
  int r = real().cxa_at_quick_exit(function, dso);
  if (r == 0 && records_process_state())
    record(ExitKind::at_quick_exit, reinterpret_cast<const void*>(function), nullptr, dso);
  return r;
}
