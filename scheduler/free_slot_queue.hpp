#pragma once
// Internal: the live nodes ordered by free slots (slots - ranks, may be negative), most first, ties
// by name; nodes at capacity leave. The same choice as scanning every node for each rank, in
// O(log nodes) per rank: `balanced` and the fill of `comm`/`consolidate` place thousands of ranks on
// a thousand nodes after a node loss at scale (bench/scale/README.md).
#include <set>
#include <utility>
#include <vector>

#include "scheduler/model.hpp"

namespace yadokari::scheduler::detail {

class FreeSlotQueue {
 public:
  // `allowed` empty = every node; `counts` = ranks per node so far.
  FreeSlotQueue(const Model& model, const std::vector<int>& counts, const std::vector<bool>& allowed = {})
      : model_(model), counts_(counts) {
    for (int n = 0; n < model.node_count; ++n)
      if ((allowed.empty() || allowed[index(n)]) && model.alive(n) && counts_[index(n)] < model.capacity[index(n)])
        queue_.insert({key(n), n});
  }

  bool empty() const { return queue_.empty(); }
  // The node with the most free slots (lowest name on ties); -1 if every node is at capacity.
  int top() const { return queue_.empty() ? -1 : queue_.begin()->second; }
  // One more rank on the top node; returns that node.
  int take() {
    const int n = top();
    queue_.erase(queue_.begin());
    if (++counts_[index(n)] < model_.capacity[index(n)]) queue_.insert({key(n), n});
    return n;
  }
  const std::vector<int>& counts() const { return counts_; }

 private:
  static std::size_t index(int n) { return static_cast<std::size_t>(n); }
  // Ascending order = most free slots first, then name order.
  std::pair<int, int> key(int n) const { return {counts_[index(n)] - model_.slots(n), model_.rank_of_name[index(n)]}; }
  struct ByKey {
    bool operator()(const std::pair<std::pair<int, int>, int>& a, const std::pair<std::pair<int, int>, int>& b) const {
      return a.first < b.first;
    }
  };

  const Model& model_;
  std::vector<int> counts_;
  std::set<std::pair<std::pair<int, int>, int>, ByKey> queue_;
};

}  // namespace yadokari::scheduler::detail
