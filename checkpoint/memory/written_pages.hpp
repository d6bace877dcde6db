#pragma once
// Which pages of the application's memory were written between two captures, for incremental
// images (checkpoint/memory/README.md, "Incremental images"). Tracked: the arena, the
// executable's writable data and the application's anonymous private mappings in their reserved
// region, which hold nearly all of an application's memory; every other area goes into an
// increment whole (tracks_written_pages() says which).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/memory/areas.hpp"

namespace yadokari::memory {

// Byte addresses [first, second), page-aligned.
using WrittenRange = std::pair<std::uint64_t, std::uint64_t>;

// Whether the capture's area of this kind at [addr, addr + len) is covered by the list of the last
// collect_written_pages() (in a forked writer: the rank's last one before the fork).
bool tracks_written_pages(AreaKind kind, std::uint64_t addr, std::uint64_t len);

enum class WrittenPages {
  listed,       // `pages` holds every page of the tracked areas written since the previous collect
  baseline,     // the tracking starts now: there is no list, the image must be full
  unavailable,  // no tracking in this process; `why` says why in one line
};

// In the process that owns the memory (never in a forked writer: the tracking acts on the process
// that started it), with no application thread running, right before the capture's memory is
// copied. Protects the tracked pages again, so the next collect lists the writes from now on.
// After `unavailable` every later call returns `unavailable` with the same reason.
WrittenPages collect_written_pages(std::vector<WrittenRange>& pages, std::string& why);

}  // namespace yadokari::memory
