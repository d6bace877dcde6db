// getenv() for the application answers from the copy made at main's start (args_region.hpp), so
// pointers it keeps stay valid after a restart and the values are those the application saw
// before it (docs/architecture.md, pitfall 6). Libraries, and the shim itself, see the live
// environment.
// If the application changes its environment (setenv & co.), it gets live answers from then on:
// exact while the process lives, but a restarted process then sees the new process's environment.
#include <cstring>

#include "checkpoint/memory/src/args_region.hpp"
#include "checkpoint/memory/src/process.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"

extern char** environ;

namespace yadokari::memory {
namespace {

char* live_getenv(const char* name) {
  if (!environ) return nullptr;
  std::size_t l = std::strlen(name);
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, name, l) == 0 && (*e)[l] == '=') return *e + l + 1;
  return nullptr;
}

void note_app_change() {
  if (!app_context()) return;
  if (ArgsRegion* r = args_region()) r->env_modified = 1;
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API char* getenv(const char* name) {
  if (app_context()) {
    ArgsRegion* r = args_region();
    if (r && !r->env_modified) return args_getenv(name);
  }
  return live_getenv(name);
}

YK_C_API int setenv(const char* name, const char* value, int overwrite) {
  note_app_change();
  if (!g_real.setenv) resolve_real_functions();
  return g_real.setenv(name, value, overwrite);
}

YK_C_API int unsetenv(const char* name) {
  note_app_change();
  if (!g_real.unsetenv) resolve_real_functions();
  return g_real.unsetenv(name);
}

YK_C_API int putenv(char* string) {
  note_app_change();
  if (!g_real.putenv) resolve_real_functions();
  return g_real.putenv(string);
}

YK_C_API int clearenv() {
  note_app_change();
  if (!g_real.clearenv) resolve_real_functions();
  return g_real.clearenv();
}
