#include "pmpi-layer/src/shim/finalize_hold.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "pmpi-layer/src/cut/cut_protocol.hpp"
#include "common/parameters.hpp"

namespace yadokari::shim {

void hold_before_finalize() {
  // A test that forgot to create the file must not leave a job behind for ever.
  constexpr auto kGiveUp = std::chrono::minutes(5);
  const auto since = std::chrono::steady_clock::now();
  for (;;) {
    // Read again on every pass: after a checkpoint this may be a restarted process with its own
    // environment (no variable there: no hold).
    const char* file = std::getenv(yadokari::parameters::kFaultHoldFinalize);
    if (!file || !*file || access(file, F_OK) == 0) return;
    if (std::chrono::steady_clock::now() - since > kGiveUp) {
      std::fprintf(stderr, "yadokari: YADOKARI_FAULT_HOLD_FINALIZE: %s did not appear within 5 minutes; finalizing\n",
                   file);
      return;
    }
    // An idle rank between calls: the boundary where a cut may park it and take its image.
    if (g_cut_requested.load(std::memory_order_relaxed)) cut_boundary();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace yadokari::shim
