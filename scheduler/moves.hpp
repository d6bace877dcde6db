#pragma once
// Placement by request (`yadokari migrate --ranks 2,3 --to n4`): the named ranks go to the named
// node, every other rank stays on the node it runs on. Pure, like the policies (placement.hpp).
#include <string>
#include <vector>

#include "scheduler/placement.hpp"

namespace yadokari::scheduler {

struct Move {
  int rank = 0;
  std::string to;  // node name
};

// Throws PlacementError (one line) when a rank is out of range or named twice, a target node is
// unknown or not alive, a rank already runs on its target, a rank that stays is on a node that is
// not alive (a re-placement by policy is needed then, not a move), or a node would hold more than
// floor(slots × max_oversubscribe) ranks.
Placement place_moves(const Job& job, const std::vector<Node>& nodes, const CurrentPlacement& current,
                      const std::vector<Move>& moves, const Options& options = {});

// The moves that empty node `leaving` (a node announced as going away: `yadokari sim drain`): each
// of its ranks, lowest first, to the live node (not `leaving`) with the most free slots at that
// point, the first listed on a tie, so that they spread over the free slots before any node is
// oversubscribed. Empty when no rank runs there. Throws PlacementError when there is no other
// live node; whether the moves fit (max_oversubscribe) is place_moves's to check.
std::vector<Move> moves_off(const std::vector<Node>& nodes, const CurrentPlacement& current,
                            const std::string& leaving);

// "ranks 2,3 to n4", "rank 5 to n2, rank 6 to n3".
std::string moves_text(const std::vector<Move>& moves);

}  // namespace yadokari::scheduler
