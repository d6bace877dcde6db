#include "checkpoint/memory/src/aslr.hpp"

#include <fcntl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "checkpoint/memory/src/diag.hpp"
#include "common/parameters.hpp"

extern char** environ;

namespace yadokari::memory {
namespace {

constexpr const char* kGuard = yadokari::parameters::kAslrReexec;

bool randomization_disabled_system_wide() {
  int fd = open("/proc/sys/kernel/randomize_va_space", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char c = 0;
  bool zero = read(fd, &c, 1) == 1 && c == '0';
  close(fd);
  return zero;
}

}  // namespace

bool ensure_no_aslr(char** argv) {
  int pers = personality(0xffffffff);
  if (pers == -1) {
    say("cannot query personality(): ", std::strerror(errno), "; checkpoints disabled");
    return false;
  }
  if ((pers & ADDR_NO_RANDOMIZE) || randomization_disabled_system_wide()) {
    // The re-exec worked. The kernel named the process after the file executed ("exe"): give it
    // back the name it had (ps, top, pkill, perf), then the environment as the user gave it.
    if (const char* name = getenv(kGuard)) prctl(PR_SET_NAME, name, 0, 0, 0);
    unsetenv(kGuard);
    return true;
  }
  if (getenv(kGuard)) {
    say("address-space randomisation is still on after re-executing; checkpoints disabled");
    return false;
  }
  if (!argv || personality(static_cast<unsigned long>(pers) | ADDR_NO_RANDOMIZE) == -1) {
    say("cannot turn address-space randomisation off: ", std::strerror(errno), "; checkpoints disabled");
    return false;
  }
  // The guard carries the process's name (at most 15 characters) across the re-exec.
  char name[17] = {};
  if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0 || name[0] == '\0') std::strcpy(name, "?");
  setenv(kGuard, name, 1);
  execve("/proc/self/exe", argv, environ);
  int e = errno;
  personality(static_cast<unsigned long>(pers));
  unsetenv(kGuard);
  say("cannot re-execute /proc/self/exe without randomisation: ", std::strerror(e), "; checkpoints disabled");
  return false;
}

}  // namespace yadokari::memory
