// See openmp.hpp. libgomp's API is resolved at load time (docs/architecture.md, pitfall 8) with
// RTLD_DEFAULT: libgomp is either among the objects loaded before main or not used at all (an
// OpenMP library loaded later by dlopen is refused by dlopen_tracking.cpp).
#include "checkpoint/memory/src/openmp.hpp"

#include <dlfcn.h>

#include <cstdio>

#include "checkpoint/memory/memory.h"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"

namespace yadokari::memory {
namespace {

struct Omp {
  int (*get_level)();
  int (*get_max_threads)();
  void (*set_num_threads)(int);
  int (*get_dynamic)();
  void (*set_dynamic)(int);
  void (*get_schedule)(int*, int*);
  void (*set_schedule)(int, int);
  int (*get_max_active_levels)();
  void (*set_max_active_levels)(int);
} g_omp;

// Carried (yk_mem_carry): the values at the last checkpoint.
struct Settings {
  int saved;  // 1 once a checkpoint saved them
  int num_threads;
  int dynamic;
  int schedule_kind;
  int schedule_chunk;
  int max_active_levels;
} g_settings;

template <typename F>
bool resolve_one(F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
  return f != nullptr;
}

bool have_openmp() { return g_omp.get_level != nullptr; }

void check() {
  if (!have_openmp()) return;
  const int level = g_omp.get_level();
  if (level > 0) {
    char line[160];
    std::snprintf(line, sizeof line,
                  "the checkpoint was requested inside an OpenMP parallel region (nesting level %d), which is not "
                  "carried",
                  level);
    refusal_add(line);
    return;
  }
  // Outside any region these are the application thread's own settings (its implicit task's).
  g_settings.num_threads = g_omp.get_max_threads();
  g_settings.dynamic = g_omp.get_dynamic();
  g_omp.get_schedule(&g_settings.schedule_kind, &g_settings.schedule_chunk);
  g_settings.max_active_levels = g_omp.get_max_active_levels();
  g_settings.saved = 1;
}

__attribute__((constructor(101))) void init() {
  Omp o{};
  bool all = resolve_one(o.get_level, "omp_get_level") && resolve_one(o.get_max_threads, "omp_get_max_threads") &&
             resolve_one(o.set_num_threads, "omp_set_num_threads") && resolve_one(o.get_dynamic, "omp_get_dynamic") &&
             resolve_one(o.set_dynamic, "omp_set_dynamic") && resolve_one(o.get_schedule, "omp_get_schedule") &&
             resolve_one(o.set_schedule, "omp_set_schedule") &&
             resolve_one(o.get_max_active_levels, "omp_get_max_active_levels") &&
             resolve_one(o.set_max_active_levels, "omp_set_max_active_levels");
  if (all) g_omp = o;
  yk_mem_carry(&g_settings, sizeof g_settings, "OpenMP settings");
  register_refusal_check(check);
}

}  // namespace

void reapply_openmp_settings() {
  if (!have_openmp() || !g_settings.saved) return;
  LibraryScope scope;  // libgomp may allocate its per-task settings: from glibc, not the arena
  g_omp.set_num_threads(g_settings.num_threads);
  g_omp.set_dynamic(g_settings.dynamic);
  g_omp.set_schedule(g_settings.schedule_kind, g_settings.schedule_chunk);
  g_omp.set_max_active_levels(g_settings.max_active_levels);
}

}  // namespace yadokari::memory
