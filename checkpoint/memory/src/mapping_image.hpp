#pragma once
// The capture half of the application's mappings (app_mappings.hpp has the restore half).
#include "checkpoint/memory/areas.hpp"

namespace yadokari::memory {

// The table, as the mappings area at address 0 (right after fds; nothing if there are none).
bool capture_mapping_table(AreaSink& sink);
// Then, later in the capture, one mappings area per mapping whose contents travel.
bool capture_mapping_contents(AreaSink& sink);

}  // namespace yadokari::memory
