// getenv() for the application answers from the copy made at main's start (args_region.hpp), so
// pointers it keeps stay valid after a restart and the values are those the application saw
// before it (docs/architecture.md, pitfall 6). Libraries, and the shim itself, see the live
// environment. Names the application changes (setenv & co.) are answered live, and carried across
// a restart with their values (environment.hpp).
#include "checkpoint/memory/src/environment.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/src/args_region.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "checkpoint/memory/src/spin_lock.hpp"
#include "common/export.hpp"

extern char** environ;

namespace yadokari::memory {
namespace {

// libc's functions (resolved on first use: another library's constructor may call them before ours).
struct RealEnvironment {
  int (*setenv)(const char*, const char*, int);
  int (*unsetenv)(const char*);
  int (*putenv)(char*);
  int (*clearenv)();
};
RealEnvironment g_libc;

const RealEnvironment& libc() {
  if (!g_libc.clearenv) {
    RealEnvironment r{};
    r.setenv = reinterpret_cast<decltype(r.setenv)>(dlsym(RTLD_NEXT, "setenv"));
    r.unsetenv = reinterpret_cast<decltype(r.unsetenv)>(dlsym(RTLD_NEXT, "unsetenv"));
    r.putenv = reinterpret_cast<decltype(r.putenv)>(dlsym(RTLD_NEXT, "putenv"));
    r.clearenv = reinterpret_cast<decltype(r.clearenv)>(dlsym(RTLD_NEXT, "clearenv"));
    g_libc = r;
  }
  return g_libc;
}
__attribute__((constructor(101))) void resolve_environment() { libc(); }  // before any thread

// The names the application touched; written under the lock, read without it (count is
// published after the name is in place).
char g_names[kMaxEnvNames][kEnvNameMax];
std::atomic<std::uint32_t> g_count{0};
std::atomic<bool> g_cleared{false};
bool g_overflow;
SpinLock g_lock;

char* live_getenv(const char* name) {
  if (!environ) return nullptr;
  std::size_t l = std::strlen(name);
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, name, l) == 0 && (*e)[l] == '=') return *e + l + 1;
  return nullptr;
}

bool touched(const char* name) {
  if (g_cleared.load(std::memory_order_acquire)) return true;
  const std::uint32_t n = g_count.load(std::memory_order_acquire);
  for (std::uint32_t i = 0; i < n; ++i)
    if (std::strcmp(g_names[i], name) == 0) return true;
  return false;
}

// `name` may end at '=' (putenv's "NAME=value").
void add_name(const char* name, std::size_t len) {
  const std::uint32_t n = g_count.load(std::memory_order_relaxed);
  for (std::uint32_t i = 0; i < n; ++i)
    if (std::strncmp(g_names[i], name, len) == 0 && g_names[i][len] == '\0') return;
  if (n == kMaxEnvNames || len >= kEnvNameMax || len == 0) {
    g_overflow = true;
    return;
  }
  std::memcpy(g_names[n], name, len);
  g_names[n][len] = '\0';
  g_count.store(n + 1, std::memory_order_release);
}

void note_app_change(const char* name) {
  if (!app_context() || !name) return;
  SpinGuard l(g_lock);
  add_name(name, std::strcspn(name, "="));
}

void check() {
  SpinGuard l(g_lock);
  static EnvChanges probe;  // .bss; the checks run on one thread
  if (g_overflow || !capture_env_changes(probe))
    refusal_add("the application changed more of its environment than is carried (128 variables, 32 KiB)");
}

__attribute__((constructor)) void register_check() { register_refusal_check(check); }

}  // namespace

bool capture_env_changes(EnvChanges& out) {
  out.cleared = g_cleared.load() ? 1 : 0;
  out.count = 0;
  std::size_t used = 0;
  const std::uint32_t n = g_count.load(std::memory_order_acquire);
  for (std::uint32_t i = 0; i < n; ++i) {
    const char* value = live_getenv(g_names[i]);
    const int len = value ? std::snprintf(out.text + used, sizeof out.text - used, "%s=%s", g_names[i], value)
                          : std::snprintf(out.text + used, sizeof out.text - used, "%s", g_names[i]);
    if (len < 0 || used + static_cast<std::size_t>(len) + 1 > sizeof out.text) return false;
    used += static_cast<std::size_t>(len) + 1;
    ++out.count;
  }
  return !g_overflow;
}

void replay_env_changes(const EnvChanges& in) {
  if (in.cleared) libc().clearenv();
  SpinGuard l(g_lock);
  g_count.store(0);
  g_cleared.store(in.cleared != 0);
  std::size_t at = 0;
  for (std::uint32_t i = 0; i < in.count && at < sizeof in.text; ++i) {
    const char* entry = in.text + at;
    const std::size_t len = strnlen(entry, sizeof in.text - at);
    if (at + len >= sizeof in.text) break;  // malformed: the check in prepare_process_state rejects it first
    const std::size_t name_len = std::strcspn(entry, "=");
    add_name(entry, name_len);
    char name[kEnvNameMax];
    if (name_len < sizeof name) {
      std::memcpy(name, entry, name_len);
      name[name_len] = '\0';
      if (entry[name_len] == '=')
        libc().setenv(name, entry + name_len + 1, 1);
      else
        libc().unsetenv(name);
    }
    at += len + 1;
  }
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API char* getenv(const char* name) {
  if (app_context()) {
    ArgsRegion* r = args_region();
    if (r && !touched(name)) return args_getenv(name);
  }
  return live_getenv(name);
}

YK_C_API int setenv(const char* name, const char* value, int overwrite) {
  note_app_change(name);
  return libc().setenv(name, value, overwrite);
}

YK_C_API int unsetenv(const char* name) {
  note_app_change(name);
  return libc().unsetenv(name);
}

YK_C_API int putenv(char* string) {
  note_app_change(string);
  return libc().putenv(string);
}

YK_C_API int clearenv() {
  if (app_context()) g_cleared.store(true, std::memory_order_release);
  return libc().clearenv();
}
