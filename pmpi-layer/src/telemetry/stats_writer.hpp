#pragma once

namespace yadokari::shim {

// YADOKARI_STATS=PATH: at MPI_Finalize each rank writes its channel table and call counts as
// JSON. PATH containing "%r" is a file name pattern (%r = logical rank); otherwise PATH is a
// directory (created if needed) that receives rank-<L>.json.
void write_stats_if_requested();

}  // namespace yadokari::shim
