// What the cut asks of the checkpoint taker, and what came of it. The cut (cut_protocol.cpp)
// decides when; the taker (checkpoint_taker.cpp), installed by the composition root, does it.
#pragma once

#include <cstdint>

namespace yadokari::shim {

struct CheckpointTarget {
  std::uint64_t epoch = 0;
  int compression = 0;  // zstd level, 0 = off
};

enum class CheckpointOutcome { written, failed, restarted };

}  // namespace yadokari::shim
