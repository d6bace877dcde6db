// libgfortran's own functions, resolved once libgfortran is loaded: see gfortran_entry_points.hpp.
#include "checkpoint/memory/src/gfortran_entry_points.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "checkpoint/memory/src/spin_lock.hpp"

namespace yadokari::memory::gfortran {
namespace {

// libgfortran.so.5 is the library of GCC 8 and later (gfortran_abi.hpp).
constexpr const char* kSoname = "libgfortran.so.5";

constexpr const char* kEntryNames[static_cast<int>(Entry::count)] = {
    "_gfortran_st_open",     "_gfortran_st_close",      "_gfortran_st_read",        "_gfortran_st_read_done",
    "_gfortran_st_write",    "_gfortran_st_write_done", "_gfortran_st_backspace",   "_gfortran_st_rewind",
    "_gfortran_st_endfile",  "_gfortran_st_inquire",    "_gfortran_random_r4",      "_gfortran_random_r8",
    "_gfortran_random_r10",  "_gfortran_random_r16",    "_gfortran_arandom_r4",     "_gfortran_arandom_r8",
    "_gfortran_arandom_r10", "_gfortran_arandom_r16",   "_gfortran_random_seed_i4", "_gfortran_random_seed_i8",
    "_gfortran_random_init"};

Functions g_functions;
void* g_entries[static_cast<int>(Entry::count)];
std::atomic<bool> g_resolved;
SpinLock g_lock;

// RTLD_NEXT finds a libgfortran that came with the program; one a dlopen brought in may sit in a
// local scope RTLD_NEXT does not search, so it is then looked up by handle. The handle is kept:
// the pointers must stay valid when the application closes its plugin.
void* symbol(const char* name) {
  if (void* f = dlsym(RTLD_NEXT, name)) return f;
  static void* handle;
  if (!handle) handle = dlopen(kSoname, RTLD_LAZY | RTLD_NOLOAD);
  return handle ? dlsym(handle, name) : nullptr;
}

template <typename F>
void find(F& slot, const char* name) {
  slot = reinterpret_cast<F>(symbol(name));
}

template <typename F>
void take(F& slot, void* const (&entries)[static_cast<int>(Entry::count)], Entry e) {
  slot = reinterpret_cast<F>(entries[static_cast<int>(e)]);
}

// Until libgfortran is found; cheap once done. No pointer is published half resolved.
void resolve() {
  if (g_resolved.load(std::memory_order_acquire)) return;
  SpinGuard guard(g_lock);
  if (g_resolved.load(std::memory_order_relaxed)) return;
  void* entries[static_cast<int>(Entry::count)];
  for (int i = 0; i < static_cast<int>(Entry::count); ++i) entries[i] = symbol(kEntryNames[i]);
  // The unit table's functions: those that are also interposed come from the same lookup.
  Functions f{};
  take(f.st_open, entries, Entry::st_open);
  take(f.st_close, entries, Entry::st_close);
  take(f.st_read, entries, Entry::st_read);
  take(f.st_read_done, entries, Entry::st_read_done);
  take(f.random_seed, entries, Entry::random_seed_i4);
  find(f.flush, "_gfortran_flush_i4");
  find(f.fnum, "_gfortran_fnum_i4");
  find(f.ftell, "_gfortran_ftell_i8_sub");
  find(f.fseek, "_gfortran_fseek_sub");
  take(f.st_inquire, entries, Entry::st_inquire);
  if (!f.st_open || !f.st_close || !f.flush || !f.fnum || !f.ftell || !f.fseek || !f.st_read || !f.st_read_done ||
      !f.st_inquire)
    return;  // not loaded (yet)
  std::memcpy(g_entries, entries, sizeof g_entries);
  g_functions = f;
  g_resolved.store(true, std::memory_order_release);
}

// At load, while nothing runs beside it (docs/architecture.md, pitfall 8); later only if
// libgfortran was not there yet.
__attribute__((constructor(101))) void resolve_at_load() { resolve(); }

}  // namespace

const Functions& functions() {
  resolve();
  return g_functions;
}

void* real(Entry e) {
  resolve();
  void* f = g_entries[static_cast<int>(e)];
  if (!f) {
    const char* name = kEntryNames[static_cast<int>(e)];
    const char* parts[] = {"yadokari: ", name, " was called but libgfortran's own is not found; aborting\n"};
    for (const char* p : parts) (void)!write(2, p, std::strlen(p));
    std::abort();
  }
  return f;
}

}  // namespace yadokari::memory::gfortran
