#pragma once
// Where this rank journals the files the application opens for writing after a checkpoint, and
// when a generation begins (checkpoint/memory/open_journal.hpp).
#include <cstdint>
#include <string>

namespace yadokari::shim::cut {

// `<YADOKARI_CKPT_DIR>/open-journal/rank-<L>`: the job's checkpoint directory, which outlives the
// rank's node (node-local image storage keeps its MANIFESTs there too); "" without one.
std::string open_journal_dir();

// Once this process passed the cut of `epoch` (its memory captured, or restored from that epoch):
// opens in application context are journaled as that generation from now on, and this rank's
// journal files older than the oldest committed epoch, which no restart can choose any more, are
// removed. A journal that cannot be started says so in one line (the job goes on).
void begin_open_journal_generation(std::uint64_t epoch);

}  // namespace yadokari::shim::cut
