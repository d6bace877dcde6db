// Locale objects (newlocale/duplocale) with data libc loaded, and a thread's locale (uselocale), are
// not carried: such an object points into locale files libc mapped wherever the process had room
// (its own mmap, which no interposer sees), and the thread's choice lives in libc's thread-local
// storage, which a restarted process has fresh. The application's objects are noted here and a
// checkpoint is refused while one with loaded data exists or while the application thread uses a
// locale of its own (checkpoint/memory/README.md, "Refused, with the reason"); freelocale forgets
// one. An object whose every category is libc's built-in C data (newlocale(LC_ALL_MASK, "", 0)
// without LANG, a duplocale of the "C" global locale) is carried: it is in the arena and points
// into libc, which a restarted process has at the same address. So is the static "C" object libc
// returns for newlocale(..., "C", 0), not noted at all. libstdc++ makes the objects behind a named
// std::locale through glibc's other names, __newlocale/__duplocale/__freelocale: followed the same
// way, and named in one line (their number and addresses are libstdc++'s business, and its facets
// also keep pointers into the loaded data, so fixing the objects up would not be enough). The real
// functions are resolved at load time (docs/architecture.md, pitfall 8); errno is left as they set it.
#include <dlfcn.h>
#include <locale.h>

#include <cstdio>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "checkpoint/memory/src/spin_lock.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

constexpr int kMaxObjects = 32;
struct Slot {
  locale_t object;   // nullptr: free
  const char* from;  // "newlocale", "duplocale", or kThroughLibstdcxx
};
// What __newlocale and __duplocale note: libstdc++'s calls (a std::locale with a name).
constexpr const char* kThroughLibstdcxx = "__newlocale/__duplocale";
Slot g_objects[kMaxObjects];
bool g_overflow;
SpinLock g_lock;
locale_t g_static_c;  // libc's own "C" object

struct Locked : SpinGuard {
  Locked() : SpinGuard(g_lock) {}
};

struct Real {
  locale_t (*newlocale)(int, const char*, locale_t);
  locale_t (*duplocale)(locale_t);
  void (*freelocale)(locale_t);
  locale_t (*uselocale)(locale_t);
  locale_t (*newlocale_internal)(int, const char*, locale_t);  // __newlocale
  locale_t (*duplocale_internal)(locale_t);                    // __duplocale
  void (*freelocale_internal)(locale_t);                       // __freelocale
} g_real;

void resolve() {
  if (g_real.uselocale) return;
  Real r{};
  r.newlocale = reinterpret_cast<decltype(r.newlocale)>(dlsym(RTLD_NEXT, "newlocale"));
  r.duplocale = reinterpret_cast<decltype(r.duplocale)>(dlsym(RTLD_NEXT, "duplocale"));
  r.freelocale = reinterpret_cast<decltype(r.freelocale)>(dlsym(RTLD_NEXT, "freelocale"));
  r.uselocale = reinterpret_cast<decltype(r.uselocale)>(dlsym(RTLD_NEXT, "uselocale"));
  r.newlocale_internal = reinterpret_cast<decltype(r.newlocale_internal)>(dlsym(RTLD_NEXT, "__newlocale"));
  r.duplocale_internal = reinterpret_cast<decltype(r.duplocale_internal)>(dlsym(RTLD_NEXT, "__duplocale"));
  r.freelocale_internal = reinterpret_cast<decltype(r.freelocale_internal)>(dlsym(RTLD_NEXT, "__freelocale"));
  if (!r.newlocale || !r.duplocale || !r.freelocale || !r.uselocale || !r.newlocale_internal || !r.duplocale_internal ||
      !r.freelocale_internal)
    fatal("cannot resolve libc's newlocale/duplocale/freelocale/uselocale (or their __ names)");
  g_static_c = r.newlocale(LC_ALL_MASK, "C", nullptr);  // no allocation: libc's static object
  g_real = r;
}

void forget(locale_t object) {
  for (Slot& s : g_objects)
    if (s.object == object) s.object = nullptr;
}

void note(locale_t object, const char* from) {
  if (!object || object == g_static_c) return;
  for (Slot& s : g_objects)
    if (!s.object) {
      s = Slot{object, from};
      return;
    }
  g_overflow = true;
}

// Every category's data is libc's built-in C data (the static "C" object's).
bool only_builtin_data(locale_t object) {
  for (int category = 0; category < 13; ++category)
    if (category != LC_ALL && object->__locales[category] != g_static_c->__locales[category]) return false;
  return true;
}

// Runs on the application thread (inside the capture): uselocale(0) is its own choice.
void check() {
  if (g_real.uselocale(nullptr) != LC_GLOBAL_LOCALE)
    refusal_add("the application thread uses a locale of its own (uselocale), which is not carried");
  Locked l;
  if (g_overflow)
    refusal_add("the application created more locale objects than are followed (32), which is not carried");
  bool through_libstdcxx = false;
  for (const Slot& s : g_objects) {
    if (!s.object || only_builtin_data(s.object)) continue;
    if (s.from == kThroughLibstdcxx) {
      through_libstdcxx = true;
      continue;
    }
    char line[128];
    std::snprintf(line, sizeof line, "locale object %p (%s) is not carried", static_cast<void*>(s.object), s.from);
    refusal_add(line);
  }
  if (through_libstdcxx)
    refusal_add("a std::locale with a name (locale objects made with ", kThroughLibstdcxx, ") is not carried");
}

__attribute__((constructor(101))) void init() {
  resolve();
  register_refusal_check(check);
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

namespace {

locale_t noted_newlocale(locale_t (*real)(int, const char*, locale_t), const char* from, int mask, const char* name,
                         locale_t base) {
  const locale_t r = real(mask, name, base);
  if (r && app_context()) {
    Locked l;
    if (base) forget(base);  // consumed: changed in place and returned, or freed
    note(r, from);
  }
  return r;
}

locale_t noted_duplocale(locale_t (*real)(locale_t), const char* from, locale_t object) {
  const locale_t r = real(object);
  if (r && app_context()) {
    Locked l;
    note(r, from);
  }
  return r;
}

void forgotten_freelocale(void (*real)(locale_t), locale_t object) {
  {
    Locked l;
    forget(object);
  }
  real(object);
}

}  // namespace

YK_C_API locale_t newlocale(int mask, const char* name, locale_t base) noexcept {
  resolve();
  return noted_newlocale(g_real.newlocale, "newlocale", mask, name, base);
}

YK_C_API locale_t duplocale(locale_t object) noexcept {
  resolve();
  return noted_duplocale(g_real.duplocale, "duplocale", object);
}

YK_C_API void freelocale(locale_t object) noexcept {
  resolve();
  forgotten_freelocale(g_real.freelocale, object);
}

// glibc's other names of the same functions, which libstdc++ calls.
YK_C_API locale_t __newlocale(int mask, const char* name, locale_t base) noexcept {
  resolve();
  return noted_newlocale(g_real.newlocale_internal, kThroughLibstdcxx, mask, name, base);
}

YK_C_API locale_t __duplocale(locale_t object) noexcept {
  resolve();
  return noted_duplocale(g_real.duplocale_internal, kThroughLibstdcxx, object);
}

YK_C_API void __freelocale(locale_t object) noexcept {
  resolve();
  forgotten_freelocale(g_real.freelocale_internal, object);
}
