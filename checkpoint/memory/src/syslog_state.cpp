// The application's syslog settings (openlog's identity, options and facility; setlogmask's mask)
// live in libc, which a restarted process has fresh: without this, a restarted process logs under
// the program's name, without LOG_PERROR's copy on standard error, with every priority. The calls
// the application makes are recorded in a carried record and made again after the restore
// (checkpoint/memory/README.md, "Library state the layer carries"). openlog's identity is the
// application's pointer (libc keeps the pointer, not a copy), which points into carried memory.
// The socket libc opens for syslog is libc's own: the openlog made again opens it again (LOG_NDELAY)
// or syslog does at its next message. The real functions are resolved at load time
// (docs/architecture.md, pitfall 8).
#include "checkpoint/memory/src/syslog_state.hpp"

#include <dlfcn.h>
#include <syslog.h>

#include "checkpoint/memory/memory.h"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

struct Real {
  void (*openlog)(const char*, int, int);
  void (*closelog)();
  int (*setlogmask)(int);
} g_real;

// Carried (yk_mem_carry): what libc holds after the application's calls. libc keeps an
// identity or facility it is not given (NULL, 0) and closelog forgets only the identity (and the
// connection), so the record follows the same rules and one openlog replays it.
struct Settings {
  int opened;  // openlog was called
  const char* ident;
  int option;
  int facility;
  int mask_set;  // setlogmask changed the mask
  int mask;
} g_settings;

void resolve() {
  if (g_real.setlogmask) return;
  Real r{};
  r.openlog = reinterpret_cast<decltype(r.openlog)>(dlsym(RTLD_NEXT, "openlog"));
  r.closelog = reinterpret_cast<decltype(r.closelog)>(dlsym(RTLD_NEXT, "closelog"));
  r.setlogmask = reinterpret_cast<decltype(r.setlogmask)>(dlsym(RTLD_NEXT, "setlogmask"));
  if (!r.openlog || !r.closelog || !r.setlogmask) fatal("cannot resolve libc's openlog/closelog/setlogmask");
  g_real = r;
}

__attribute__((constructor(101))) void init() {
  resolve();
  yk_mem_carry(&g_settings, sizeof g_settings, "syslog settings");
}

}  // namespace

void reapply_syslog_settings() {
  LibraryScope scope;  // libc's own work, not the application's
  if (g_settings.opened) g_real.openlog(g_settings.ident, g_settings.option, g_settings.facility);
  if (g_settings.mask_set) g_real.setlogmask(g_settings.mask);
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API void openlog(const char* ident, int option, int facility) {
  resolve();
  g_real.openlog(ident, option, facility);
  if (!app_context()) return;
  g_settings.opened = 1;
  if (ident) g_settings.ident = ident;
  g_settings.option = option;
  if (facility != 0 && (facility & ~LOG_FACMASK) == 0) g_settings.facility = facility;
}

YK_C_API void closelog(void) {
  resolve();
  g_real.closelog();
  if (!app_context()) return;
  g_settings.ident = nullptr;
  g_settings.option &= ~LOG_NDELAY;  // closed: the next syslog connects
}

YK_C_API int setlogmask(int mask) {
  resolve();
  const int previous = g_real.setlogmask(mask);
  if (mask != 0 && app_context()) {  // 0 only reads the mask
    g_settings.mask_set = 1;
    g_settings.mask = mask;
  }
  return previous;
}
