// The application's resource limits (resource_limits.hpp): libc's functions, the record's capture,
// check and replay. The interposers are in resource_limit_calls.cpp.
#include "checkpoint/memory/src/resource_limits.hpp"

#include <dlfcn.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/src/diag.hpp"

namespace yadokari::memory {
namespace {

struct Real {
  int (*setrlimit)(int, const struct rlimit*);
  int (*prlimit)(pid_t, __rlimit_resource, const struct rlimit*, struct rlimit*);
} g_real_limits;

__attribute__((constructor(101))) void resolve() {
  if (g_real_limits.prlimit) return;
  Real r{};
  r.setrlimit = reinterpret_cast<decltype(r.setrlimit)>(dlsym(RTLD_NEXT, "setrlimit"));
  r.prlimit = reinterpret_cast<decltype(r.prlimit)>(dlsym(RTLD_NEXT, "prlimit"));
  if (!r.setrlimit || !r.prlimit) fatal("cannot resolve libc's setrlimit/prlimit");
  g_real_limits = r;
}

const Real& real() {
  if (!g_real_limits.prlimit) resolve();
  return g_real_limits;
}

const char* resource_name(int resource) {
  static const char* const names[] = {"RLIMIT_CPU",      "RLIMIT_FSIZE", "RLIMIT_DATA",   "RLIMIT_STACK",
                                      "RLIMIT_CORE",     "RLIMIT_RSS",   "RLIMIT_NPROC",  "RLIMIT_NOFILE",
                                      "RLIMIT_MEMLOCK",  "RLIMIT_AS",    "RLIMIT_LOCKS",  "RLIMIT_SIGPENDING",
                                      "RLIMIT_MSGQUEUE", "RLIMIT_NICE",  "RLIMIT_RTPRIO", "RLIMIT_RTTIME"};
  return resource >= 0 && resource < static_cast<int>(sizeof names / sizeof *names) ? names[resource] : "a limit";
}

bool changed(const ResourceLimits& limits, int resource) { return (limits.changed >> resource) & 1U; }

struct rlimit wanted(const ResourceLimits& limits, int resource) {
  struct rlimit l {};
  l.rlim_cur = limits.soft[resource];
  l.rlim_max = limits.hard[resource];
  return l;
}

// A limit's value in messages: a number or "unlimited".
void describe(std::uint64_t value, char* out, std::size_t len) {
  if (value == RLIM_INFINITY)
    std::snprintf(out, len, "unlimited");
  else
    std::snprintf(out, len, "%llu", static_cast<unsigned long long>(value));
}

}  // namespace

void note_limit_changed(ResourceLimits& limits, int resource) { limits.changed |= 1U << resource; }

int real_setrlimit(int resource, const struct rlimit* limit) { return real().setrlimit(resource, limit); }
int real_prlimit(pid_t pid, int resource, const struct rlimit* limit, struct rlimit* old) {
  return real().prlimit(pid, static_cast<__rlimit_resource>(resource), limit, old);
}

void read_resource_limits(ResourceLimits& limits) {
  for (int r = 0; r < kResourceCount; ++r) {
    struct rlimit now {};
    if (!changed(limits, r) || getrlimit(r, &now) != 0) continue;
    limits.soft[r] = now.rlim_cur;
    limits.hard[r] = now.rlim_max;
  }
}

bool resource_limits_fit(const ResourceLimits& limits, char* why, std::size_t why_len) {
  for (int r = 0; r < kResourceCount; ++r) {
    if (!changed(limits, r)) continue;
    struct rlimit before {};
    const struct rlimit want = wanted(limits, r);
    if (real().prlimit(0, static_cast<__rlimit_resource>(r), nullptr, &before) != 0 ||
        real().prlimit(0, static_cast<__rlimit_resource>(r), &want, nullptr) != 0) {
      const int error = errno;
      char soft[24], hard[24], own[24];
      describe(want.rlim_cur, soft, sizeof soft);
      describe(want.rlim_max, hard, sizeof hard);
      describe(before.rlim_max, own, sizeof own);
      std::snprintf(why, why_len,
                    "the application's limit %s (soft %s, hard %s) cannot be set in this process (its hard limit is "
                    "%s): %s",
                    resource_name(r), soft, hard, own, std::strerror(error));
      return false;
    }
    // Put back at once: nothing changes before the restore's point of no return (a lowered hard
    // limit cannot be raised again without the privilege to: it stays as the replay sets it).
    real().prlimit(0, static_cast<__rlimit_resource>(r), &before, nullptr);
  }
  return true;
}

void replay_resource_limits(const ResourceLimits& limits) {
  for (int r = 0; r < kResourceCount; ++r) {
    if (!changed(limits, r)) continue;
    const struct rlimit want = wanted(limits, r);
    if (real().prlimit(0, static_cast<__rlimit_resource>(r), &want, nullptr) != 0)
      say("cannot set the application's limit ", resource_name(r), " again");
  }
}

}  // namespace yadokari::memory
