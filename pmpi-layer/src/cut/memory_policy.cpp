// When the shim turns on the memory layer (checkpoint/memory): only for jobs that checkpoint or
// restore. Every other job keeps glibc's allocator, the kernel's address randomisation and no
// re-exec.
#include "checkpoint/memory/memory.h"

#include <cstdlib>
#include "common/parameters.hpp"

namespace {
bool set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}
}  // namespace

extern "C" int yk_mem_wanted_by_default(void) {
  return set(yadokari::parameters::kCkptDir) || set(yadokari::parameters::kRestore);
}
