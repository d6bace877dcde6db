// The interposers of setrlimit and prlimit: a limit the application's code sets on this process
// goes into the live record (resource_limits.hpp).
#include <unistd.h>

#include "checkpoint/memory/src/process_state.hpp"
#include "checkpoint/memory/src/resource_limits.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

void record(int resource) {
  if (resource < 0 || resource >= kResourceCount || !records_process_state()) return;
  ProcessStateLocked l;
  note_limit_changed(live_process_state().limits, resource);
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int setrlimit(__rlimit_resource_t resource, const struct rlimit* limit) noexcept {
  const int r = real_setrlimit(resource, limit);
  if (r == 0) record(static_cast<int>(resource));
  return r;
}

YK_C_API int setrlimit64(__rlimit_resource_t resource, const struct rlimit64* limit) noexcept {
  return setrlimit(resource, reinterpret_cast<const struct rlimit*>(limit));
}

YK_C_API int prlimit(pid_t pid, __rlimit_resource resource, const struct rlimit* limit, struct rlimit* old) noexcept {
  const int r = real_prlimit(pid, resource, limit, old);
  if (r == 0 && limit && (pid == 0 || pid == getpid())) record(static_cast<int>(resource));
  return r;
}

YK_C_API int prlimit64(pid_t pid, __rlimit_resource resource, const struct rlimit64* limit,
                       struct rlimit64* old) noexcept {
  return prlimit(pid, resource, reinterpret_cast<const struct rlimit*>(limit), reinterpret_cast<struct rlimit*>(old));
}
