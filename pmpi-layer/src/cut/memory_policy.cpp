// When the shim turns on the memory layer (checkpoint/memory): only for jobs that checkpoint or
// restore. Every other job keeps glibc's allocator, the kernel's address randomisation and no
// re-exec.
#include "memory/memory.h"

#include <cstdlib>

namespace {
bool set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}
}  // namespace

extern "C" int yk_mem_wanted_by_default(void) { return set("YADOKARI_CKPT_DIR") || set("YADOKARI_RESTORE"); }
