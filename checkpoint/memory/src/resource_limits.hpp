#pragma once
// The resource limits the application sets (checkpoint/memory/README.md, "The application's
// process state"). A restarted process starts with the launcher's limits: before, a limit the
// application changed after the restore point (a core size, a file size, the number of open files)
// was the launcher's again after a restart, exit 0. setrlimit and prlimit on this process mark the
// resource; the capture reads the limits in force then, and a restarted process sets them again.
// What the restarted process cannot set (a hard limit above its own, without the privilege to
// raise it) refuses the restore with one line.
#include <sys/resource.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace yadokari::memory {

inline constexpr int kResourceCount = RLIM_NLIMITS;

struct ResourceLimits {
  std::uint32_t changed;  // bit r: the application set resource r after the restore point
  std::uint32_t pad;
  std::uint64_t soft[kResourceCount], hard[kResourceCount];  // at the checkpoint (changed ones)
};

// The interposers (resource_limit_calls.cpp, under the process state's lock).
void note_limit_changed(ResourceLimits& limits, int resource);
// libc's functions, which they call.
int real_setrlimit(int resource, const struct rlimit* limit);
int real_prlimit(pid_t pid, int resource, const struct rlimit* limit, struct rlimit* old);
// The capture: the changed limits as they are now.
void read_resource_limits(ResourceLimits& limits);
// The restore, before anything is modified: each limit can be set in this process (tried, and put
// back at once). False with one line in `why` otherwise.
bool resource_limits_fit(const ResourceLimits& limits, char* why, std::size_t why_len);
// In the restarted process: the limits set again.
void replay_resource_limits(const ResourceLimits& limits);

}  // namespace yadokari::memory
