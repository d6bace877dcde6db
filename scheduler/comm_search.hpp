#pragma once
// Internal: the two halves of the `comm` policy (and of `auto`'s consolidate candidate), on the
// sparse partner lists of the model: a greedy fill of the unplaced ranks next to their partners,
// then a local search of single moves and swaps. Both read each rank's partners only, never a
// W x W matrix (bench/scale/README.md, --plan-only, measures them at up to 16,384 ranks).
#include <vector>

#include "scheduler/model.hpp"

namespace yadokari::scheduler::detail {

// Places every unplaced rank of `a` on an `allowed` node: repeatedly the (unplaced rank, node)
// pair with the most bytes between the rank and the ranks already on that node. Nodes with a free
// slot come first; only when none is left do ranks share cores (up to capacity). Ties: more free
// slots, then the lower rank, then the lower node name.
void comm_fill(const Model& m, Assignment& a, const std::vector<bool>& allowed);

// Local improvement of inter-node bytes by single moves (into free slots only) and swaps.
// Displaced ranks move for free; a rank that could have stayed (kept[r] >= 0) costs one unit of
// `budget` and the step must save at least comm_min_gain of the predicted time per epoch. Every step
// strictly lowers the inter-node bytes, so this ends; the step count is also capped (at
// 2 x (displaced + budget) + 2, and at 128). Returns the
// ranks moved away from where they could have stayed. Ties: the larger gain, the fewer extra
// moves, single moves before swaps, then rank and name order. Above
// Options::comm_exhaustive_ranks ranks, each step after the first re-examines only the ranks next
// to the previous step, so a step that became better elsewhere can be missed.
std::vector<int> comm_refine(const Model& m, Assignment& a, const Assignment& kept, int budget,
                             const std::vector<bool>& allowed);

}  // namespace yadokari::scheduler::detail
