#include "pmpi-layer/src/core/asymmetric_fence.hpp"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace yadokari::shim {
namespace {

long membarrier(int command) { return syscall(SYS_membarrier, command, 0u, 0); }

}  // namespace

bool enable_asymmetric_fence() {
  const long supported = membarrier(MEMBARRIER_CMD_QUERY);
  g_asymmetric_fence = supported > 0 && (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
                       membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
  return g_asymmetric_fence;
}

void heavy_fence() {
  // A failure after a successful registration is not documented to happen; a full barrier here
  // would not make the light side's compiler barrier enough, so a failure stops the rank rather
  // than let a cut miss a rank inside a collective (the job would hang).
  if (g_asymmetric_fence) {
    if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
      std::fprintf(stderr, "yadokari: internal error: membarrier failed after registration: %s\n",
                   std::strerror(errno));
      std::abort();
    }
    return;
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace yadokari::shim
