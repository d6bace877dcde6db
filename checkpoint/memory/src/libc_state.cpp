// The working directory, the umask, the locale and strtok's position of the application
// (process_state.hpp). chdir/fchdir and umask mark that the application changed them (the capture
// reads the values then); setlocale calls are kept with the name libc resolved, since a restarted
// process has another environment (LANG...). strtok is answered with strtok_r from a position in
// the carried record, so a tokenisation in progress at the checkpoint continues after a restart.
#include <dlfcn.h>
#include <locale.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "common/export.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/next_symbol.hpp"
#include "checkpoint/memory/src/process_state.hpp"
#include "checkpoint/memory/src/routing.hpp"

namespace yadokari::memory {
namespace {

struct Real {
  int (*chdir)(const char*);
  int (*fchdir)(int);
  mode_t (*umask)(mode_t);
  char* (*setlocale)(int, const char*);
  char* (*strtok)(char*, const char*);
} g_real_libc;

constexpr const char* kUnresolved = "cannot resolve libc's chdir/umask/setlocale/strtok";

__attribute__((constructor(101))) void resolve() {
  if (g_real_libc.strtok) return;
  Real r{};
  resolve_next(r.chdir, "chdir", kUnresolved);
  resolve_next(r.fchdir, "fchdir", kUnresolved);
  resolve_next(r.umask, "umask", kUnresolved);
  resolve_next(r.setlocale, "setlocale", kUnresolved);
  resolve_next(r.strtok, "strtok", kUnresolved);
  g_real_libc = r;
}

const Real& real() {
  if (!g_real_libc.strtok) resolve();
  return g_real_libc;
}

void record_cwd() {
  ProcessStateLocked l;
  live_process_state().have_cwd = 1;
}

void record_locale(int category, const char* name) {
  ProcessStateLocked l;
  ProcessState& s = live_process_state();
  if (s.locale_count == kMaxLocaleCalls) {
    // Collapse the history into the one call that sets what is in force now.
    const char* all = real().setlocale(LC_ALL, nullptr);
    s.locale_count = 0;
    if (!all) return;
    category = LC_ALL;
    name = all;
  }
  LocaleCall& c = s.locales[s.locale_count];
  if (std::strlen(name) >= sizeof c.name) {
    s.overflow = 1;
    return;
  }
  c.category = category;
  std::snprintf(c.name, sizeof c.name, "%s", name);
  ++s.locale_count;
}

}  // namespace

void replay_libc_state(const ProcessState& s) {
  if (s.have_cwd && real().chdir(s.cwd) != 0) say("cannot change back to the application's working directory ", s.cwd);
  if (s.have_umask) real().umask(static_cast<mode_t>(s.umask_value));
  for (std::uint32_t i = 0; i < s.locale_count; ++i)
    if (!real().setlocale(s.locales[i].category, s.locales[i].name))
      say("cannot set the application's locale ", s.locales[i].name, " again");
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int chdir(const char* path) {
  int r = real().chdir(path);
  if (r == 0 && records_process_state()) record_cwd();
  return r;
}

YK_C_API int fchdir(int fd) {
  int r = real().fchdir(fd);
  if (r == 0 && records_process_state()) record_cwd();
  return r;
}

YK_C_API mode_t umask(mode_t mask) {
  mode_t r = real().umask(mask);
  if (records_process_state()) {
    ProcessStateLocked l;
    live_process_state().have_umask = 1;
    live_process_state().umask_value = mask & 0777;
  }
  return r;
}

YK_C_API char* setlocale(int category, const char* name) {
  char* r = real().setlocale(category, name);
  if (r && name && records_process_state()) record_locale(category, r);
  return r;
}

YK_C_API char* strtok(char* s, const char* delimiters) {
  if (!app_context()) return real().strtok(s, delimiters);
  auto* next = reinterpret_cast<char**>(&live_process_state().strtok_next);
  return strtok_r(s, delimiters, next);
}
