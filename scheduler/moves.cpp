#include "scheduler/moves.hpp"

#include <map>
#include <set>

#include "scheduler/model.hpp"

namespace yadokari::scheduler {

using detail::Assignment;
using detail::Model;

Placement place_moves(const Job& job, const std::vector<Node>& nodes, const CurrentPlacement& current,
                      const std::vector<Move>& moves, const Options& options) {
  const Model m(job, nodes, current, options);
  if (moves.empty()) throw PlacementError("no rank to move");
  std::map<std::string, int> index;
  for (int n = 0; n < m.node_count; ++n) index[m.name(n)] = n;

  Assignment assignment = m.current;
  std::set<int> moved;
  for (const Move& move : moves) {
    if (move.rank < 0 || move.rank >= m.world)
      throw PlacementError("rank " + std::to_string(move.rank) + " does not exist (the job has ranks 0-" +
                           std::to_string(m.world - 1) + ")");
    if (!moved.insert(move.rank).second) throw PlacementError("rank " + std::to_string(move.rank) + " is named twice");
    const auto target = index.find(move.to);
    if (target == index.end()) throw PlacementError("no node '" + move.to + "' in the cluster");
    if (!m.alive(target->second)) throw PlacementError("node '" + move.to + "' is not alive");
    if (m.current[static_cast<std::size_t>(move.rank)] == target->second)
      throw PlacementError("rank " + std::to_string(move.rank) + " already runs on " + move.to);
    assignment[static_cast<std::size_t>(move.rank)] = target->second;
  }
  for (int rank = 0; rank < m.world; ++rank)
    if (!moved.count(rank) && !m.survives(rank))
      throw PlacementError("rank " + std::to_string(rank) +
                           " is not on a live node: the job needs a re-placement (rebalance), not a move");
  const std::vector<int> counts = detail::counts_of(m, assignment);
  for (int n = 0; n < m.node_count; ++n)
    if (counts[static_cast<std::size_t>(n)] > m.capacity[static_cast<std::size_t>(n)])
      throw PlacementError("node '" + m.name(n) + "' would hold " +
                           std::to_string(counts[static_cast<std::size_t>(n)]) + " ranks, more than its " +
                           std::to_string(m.slots(n)) + " slots allow (at most " +
                           std::to_string(m.capacity[static_cast<std::size_t>(n)]) + ")");
  return detail::finish(m, assignment, "moves", "moved as asked: " + moves_text(moves) + "; the other ranks stay");
}

std::vector<Move> moves_off(const std::vector<Node>& nodes, const CurrentPlacement& current,
                            const std::string& leaving) {
  std::map<std::string, int> free;  // live nodes other than the leaving one -> slots left
  for (const Node& node : nodes)
    if (node.alive && node.name != leaving) free[node.name] = node.slots;
  for (const std::string& host : current)
    if (const auto at = free.find(host); at != free.end()) --at->second;
  std::vector<Move> moves;
  for (int rank = 0; rank < static_cast<int>(current.size()); ++rank) {
    if (current[static_cast<std::size_t>(rank)] != leaving) continue;
    if (free.empty()) throw PlacementError("no other live node to move ranks to");
    const Node* best = nullptr;  // in the nodes' order, so that a tie goes to the first listed
    for (const Node& node : nodes)
      if (free.count(node.name) && (!best || free[node.name] > free[best->name])) best = &node;
    --free[best->name];
    moves.push_back({rank, best->name});
  }
  return moves;
}

std::string moves_text(const std::vector<Move>& moves) {
  // Ranks going to the same node are listed together, in the order the nodes were first named.
  std::vector<std::string> order;
  std::map<std::string, std::vector<int>> by_node;
  for (const Move& move : moves) {
    if (!by_node.count(move.to)) order.push_back(move.to);
    by_node[move.to].push_back(move.rank);
  }
  std::string text;
  for (const auto& node : order) {
    const auto& ranks = by_node[node];
    text += (text.empty() ? "" : ", ") + std::string(ranks.size() > 1 ? "ranks " : "rank ") + rank_list(ranks) +
            " to " + node;
  }
  return text;
}

}  // namespace yadokari::scheduler
