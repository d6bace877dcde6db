#include "scheduler/comm_search.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "scheduler/free_slot_queue.hpp"

namespace yadokari::scheduler::detail {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// The refinement's steps are capped: a consolidation of thousands of ranks would otherwise take one
// step per displaced rank (7 s at 4,096 ranks with 16 random partners each, exhaustively:
// bench/results/2026-11-26/NOTES.md). Jobs of up to 63 displaced ranks never reach the cap.
constexpr int kMaxRefineSteps = 128;

std::vector<int> unplaced(const Assignment& assignment) {
  std::vector<int> ranks;
  for (std::size_t r = 0; r < assignment.size(); ++r)
    if (assignment[r] < 0) ranks.push_back(static_cast<int>(r));
  return ranks;
}

// Bytes between one rank and each node, kept only for the few nodes its partners are on.
class NodeBytes {
 public:
  std::uint64_t get(int node) const {
    for (const auto& [n, bytes] : entries_)
      if (n == node) return bytes;
    return 0;
  }
  void add(int node, std::uint64_t bytes) {
    for (auto& [n, total] : entries_)
      if (n == node) {
        total += bytes;
        return;
      }
    entries_.emplace_back(node, bytes);
  }
  void subtract(int node, std::uint64_t bytes) {
    for (auto& [n, total] : entries_)
      if (n == node) total -= bytes;
  }
  const std::vector<std::pair<int, std::uint64_t>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<int, std::uint64_t>> entries_;
};

// Without traffic every affinity is 0, so the fill's pick is always the lowest unplaced rank and
// the first node (by name) with the most free slots (a node with a free slot always has more than
// a full one, since capacity >= slots): O(ranks log nodes) (7.5 s at 4,096 ranks as a scan).
void fill_without_traffic(const Model& m, Assignment& a, const std::vector<bool>& allowed, const std::vector<int>& todo,
                          const std::vector<int>& counts) {
  FreeSlotQueue queue(m, counts, allowed);
  for (const int rank : todo) {
    if (queue.empty()) throw std::logic_error("scheduler: comm ran out of capacity");
    a[at(rank)] = queue.take();
  }
}

// An unplaced rank waiting next to a node: its bytes to the node's ranks and its place in `todo`.
struct Waiting {
  std::uint64_t bytes = 0;
  std::size_t index = 0;
};
struct MostBytesFirst {
  bool operator()(const Waiting& x, const Waiting& y) const {
    return x.bytes != y.bytes ? x.bytes > y.bytes : x.index < y.index;
  }
};

}  // namespace

void comm_fill(const Model& m, Assignment& a, const std::vector<bool>& allowed) {
  const std::vector<int> todo = unplaced(a);  // ascending, so a lower index is a lower rank
  if (todo.empty()) return;
  auto counts = counts_of(m, a);
  if (!m.has_traffic()) return fill_without_traffic(m, a, allowed, todo, counts);
  std::vector<long> index_of(at(m.world), -1);  // rank -> its index in todo while unplaced
  for (std::size_t i = 0; i < todo.size(); ++i) index_of[at(todo[i])] = static_cast<long>(i);
  std::vector<NodeBytes> affinity(todo.size());
  // Per node, the unplaced ranks with bytes to it, most first: the node's best pair is its first.
  std::vector<std::set<Waiting, MostBytesFirst>> waiting(at(m.node_count));
  for (std::size_t i = 0; i < todo.size(); ++i)
    for (const auto& p : m.partners_of(todo[i]))
      if (p.bytes > 0 && a[at(p.rank)] >= 0) affinity[i].add(a[at(p.rank)], p.bytes);
  for (std::size_t i = 0; i < todo.size(); ++i)
    for (const auto& [n, bytes] : affinity[i].entries()) waiting[at(n)].insert({bytes, i});
  std::vector<bool> done(todo.size(), false);
  std::size_t lowest_waiting = 0;
  for (std::size_t placed = 0; placed < todo.size(); ++placed) {
    bool any_free = false;
    for (int n = 0; n < m.node_count; ++n)
      if (allowed[at(n)] && m.alive(n) && counts[at(n)] < m.slots(n) && counts[at(n)] < m.capacity[at(n)])
        any_free = true;
    // The best pair with bytes > 0 (more bytes, more free slots, lower rank, lower name), and the
    // node a rank without any would take (more free slots, lower name).
    int best_n = -1, freest = -1;
    Waiting best;
    for (const int n : m.by_name) {
      if (!allowed[at(n)] || !m.alive(n) || counts[at(n)] >= m.capacity[at(n)]) continue;
      if (any_free && counts[at(n)] >= m.slots(n)) continue;
      const int free_n = m.slots(n) - counts[at(n)];
      if (freest < 0 || free_n > m.slots(freest) - counts[at(freest)]) freest = n;
      if (waiting[at(n)].empty()) continue;
      const Waiting& top = *waiting[at(n)].begin();
      if (best_n < 0 || top.bytes > best.bytes ||
          (top.bytes == best.bytes && (free_n > m.slots(best_n) - counts[at(best_n)] ||
                                       (free_n == m.slots(best_n) - counts[at(best_n)] && top.index < best.index)))) {
        best_n = n;
        best = top;
      }
    }
    if (freest < 0) throw std::logic_error("scheduler: comm ran out of capacity");
    if (best_n < 0) {
      while (done[lowest_waiting]) ++lowest_waiting;
      best = {0, lowest_waiting};
      best_n = freest;
    }
    const std::size_t i = best.index;
    done[i] = true;
    index_of[at(todo[i])] = -1;
    for (const auto& [n, bytes] : affinity[i].entries()) waiting[at(n)].erase({bytes, i});
    a[at(todo[i])] = best_n;
    ++counts[at(best_n)];
    for (const auto& p : m.partners_of(todo[i])) {
      const long j = index_of[at(p.rank)];
      if (j < 0 || p.bytes == 0) continue;
      const auto before = affinity[at(static_cast<int>(j))].get(best_n);
      if (before > 0) waiting[at(best_n)].erase({before, static_cast<std::size_t>(j)});
      affinity[at(static_cast<int>(j))].add(best_n, p.bytes);
      waiting[at(best_n)].insert({before + p.bytes, static_cast<std::size_t>(j)});
    }
  }
}

namespace {

// One step of the refinement: a single move of `r` to node `other`, or a swap of ranks r < other.
struct Step {
  double gain = 0;
  int cost = 0;                        // change of the number of kept ranks away from home
  std::tuple<bool, int, int> order{};  // (swap, rank, node's name order or the other rank): the ties
  int r = -1, other = -1;
  bool swap = false;
};

// x goes before y: the larger gain, the fewer extra moves, then single moves before swaps, then
// rank and name order. A total order, so the best step does not depend on where it was found.
bool goes_before(const Step& x, const Step& y) {
  if (x.gain != y.gain) return x.gain > y.gain;
  if (x.cost != y.cost) return x.cost < y.cost;
  return x.order < y.order;
}

}  // namespace

std::vector<int> comm_refine(const Model& m, Assignment& a, const Assignment& kept, int budget,
                             const std::vector<bool>& allowed) {
  std::vector<int> extra_moved;
  if (!m.has_traffic()) return extra_moved;
  std::vector<NodeBytes> affinity(at(m.world));
  std::vector<std::vector<int>> ranks_on(at(m.node_count));
  for (int r = 0; r < m.world; ++r) {
    ranks_on[at(a[at(r)])].push_back(r);
    for (const auto& p : m.partners_of(r))
      if (p.bytes > 0) affinity[at(r)].add(a[at(p.rank)], p.bytes);
  }
  auto counts = counts_of(m, a);
  // An extra move must save at least comm_min_gain of the predicted epoch time; a byte kept
  // inside a node saves (1/inter - 1/intra bandwidth) seconds.
  const CostParameters& p = m.options.cost;
  const double per_byte = 1.0 / p.inter_bandwidth_Bps - 1.0 / p.intra_bandwidth_Bps;
  const double threshold = per_byte > 0 ? std::max(1.0, m.options.comm_min_gain * cost_of(m, a).total_s / per_byte)
                                        : std::numeric_limits<double>::infinity();
  const auto gain_of = [&](int r, int to) {
    return static_cast<double>(affinity[at(r)].get(to)) - static_cast<double>(affinity[at(r)].get(a[at(r)]));
  };
  // Change of the number of kept ranks away from home if r goes to `to`.
  const auto moves_of = [&](int r, int to) {
    const int home = kept[at(r)];
    if (home < 0) return 0;
    return (a[at(r)] == home ? 1 : 0) - (to == home ? 1 : 0);
  };
  int away = 0;
  const auto apply = [&](int r, int to) {
    const int from = a[at(r)];
    away += moves_of(r, to);
    for (const auto& partner : m.partners_of(r)) {
      if (partner.bytes == 0) continue;
      affinity[at(partner.rank)].subtract(from, partner.bytes);
      affinity[at(partner.rank)].add(to, partner.bytes);
    }
    auto& old_list = ranks_on[at(from)];
    old_list.erase(std::find(old_list.begin(), old_list.end(), r));
    ranks_on[at(to)].push_back(r);
    --counts[at(from)];
    ++counts[at(to)];
    a[at(r)] = to;
  };
  const int max_steps = std::min(2 * (static_cast<int>(unplaced(kept).size()) + budget) + 2, kMaxRefineSteps);
  // A rank that could stay and is at home costs a move to take part in any step (the other rank
  // cannot make up for it by going home while no kept rank is away). If no extra move is allowed,
  // or no step can reach the threshold an extra move needs (a step gains at most the bytes of its
  // two ranks), such a step is never taken, no kept rank ever leaves, and only the displaced ranks
  // move: the search leaves the others out (the same steps, found among far fewer ranks; at scale
  // the threshold, a share of the whole job's predicted time, is out of any pair's reach).
  std::uint64_t heaviest = 0;
  for (int r = 0; r < m.world; ++r) {
    std::uint64_t total = 0;
    for (const auto& partner : m.partners_of(r)) total += partner.bytes;
    heaviest = std::max(heaviest, total);
  }
  const bool kept_stay = budget == 0 || 2.0 * static_cast<double>(heaviest) < threshold;
  const auto movable = [&](int r) { return !kept_stay || kept[at(r)] < 0; };
  // best_swap_gain[n]: the most any movable rank on node n can gain by going anywhere (0 if
  // nowhere): a swap with a rank of n gains at most what the other rank gains by going to n plus
  // this. It depends only on node n's ranks and their affinities, so a step changes it only on the
  // nodes the step touched and on its partners' nodes.
  std::vector<double> best_swap_gain(at(m.node_count), 0.0);
  const auto update_swap_gain = [&](int n) {
    double best = 0.0;
    for (const int q : ranks_on[at(n)])
      if (movable(q))
        for (const auto& [to, bytes] : affinity[at(q)].entries()) best = std::max(best, gain_of(q, to));
    best_swap_gain[at(n)] = best;
  };
  // The best step that moves r (alone, or in a swap found from r's side). Only a node r has bytes
  // to can gain it anything, and a swap gains only if one of the two has bytes to the other's node:
  // so every step is found from one of its ranks' own entries.
  const auto best_step_of = [&](int r) {
    std::optional<Step> best;
    if (!movable(r)) return best;
    const auto consider = [&](double gain, int cost, int x, int other, bool swap) {
      if (gain <= 0) return;
      if (cost > 0 && (away + cost > budget || gain < threshold)) return;
      const Step step{gain, cost, {swap, x, swap ? other : m.rank_of_name[at(other)]}, x, other, swap};
      if (!best || goes_before(step, *best)) best = step;
    };
    const int nr = a[at(r)];
    for (const auto& [n, bytes] : affinity[at(r)].entries()) {
      if (bytes == 0 || n == nr) continue;
      if (allowed[at(n)] && m.alive(n) && counts[at(n)] < m.slots(n) && counts[at(n)] < m.capacity[at(n)])
        consider(gain_of(r, n), moves_of(r, n), r, n, false);
      // No swap with a rank of n can be chosen: it would gain nothing, or less than the best.
      const double bound = gain_of(r, n) + best_swap_gain[at(n)];
      if (bound <= 0 || (best && bound < best->gain)) continue;
      for (const int q : ranks_on[at(n)]) {
        if (!movable(q)) continue;
        const int lo = std::min(r, q), hi = std::max(r, q);
        const int n_lo = a[at(lo)], n_hi = a[at(hi)];
        const double gain = gain_of(lo, n_hi) + gain_of(hi, n_lo) - 2.0 * static_cast<double>(m.bytes(lo, hi));
        consider(gain, moves_of(lo, n_hi) + moves_of(hi, n_lo), lo, hi, true);
      }
    }
    return best;
  };
  // At most what any step of r gains (the bound above over its nodes), in O(r's entries).
  const auto bound_of = [&](int r) {
    double bound = 0.0;
    if (!movable(r)) return bound;
    const int nr = a[at(r)];
    for (const auto& [n, bytes] : affinity[at(r)].entries())
      if (bytes != 0 && n != nr) bound = std::max(bound, gain_of(r, n) + best_swap_gain[at(n)]);
    return bound;
  };
  // Every movable rank waits in one ordered set, with either a bound of its best step or the step
  // itself (found at step `found`); bounds go before steps of the same gain. The first entry is
  // looked at: a bound is replaced by the rank's step, a step found before this one is found again,
  // and a step found now is the best of all ranks, since every other entry is at most as good.
  // A small job has every bound computed again before each step, so each step is the best of the
  // whole job (the exhaustive search). A large one computes again only the bounds of the ranks next
  // to the last step (the moved ranks, their partners, the ranks of the two nodes): a step that
  // became better elsewhere can be missed, so the result may differ from the exhaustive search's
  // (scale_harness --plan-only --compare-exhaustive compares their inter-node bytes), but each step
  // taken is a real, strictly improving one.
  const bool exhaustive = m.world <= m.options.comm_exhaustive_ranks;
  struct Entry {
    Step step;  // only step.gain for a bound
    bool exact = false;
    int found = 0;
  };
  struct EntryOrder {
    bool operator()(const std::pair<Entry, int>& x, const std::pair<Entry, int>& y) const {
      const Entry &ex = x.first, &ey = y.first;
      if (ex.step.gain != ey.step.gain) return ex.step.gain > ey.step.gain;
      if (ex.exact != ey.exact) return !ex.exact;
      if (ex.exact) {
        if (goes_before(ex.step, ey.step)) return true;
        if (goes_before(ey.step, ex.step)) return false;
      }
      if (ex.found != ey.found) return ex.found < ey.found;
      return x.second < y.second;
    }
  };
  std::vector<std::optional<Entry>> entry_of(at(m.world));
  std::set<std::pair<Entry, int>, EntryOrder> queue;
  const auto put = [&](int r, std::optional<Entry> entry) {
    if (entry_of[at(r)]) queue.erase({*entry_of[at(r)], r});
    entry_of[at(r)] = entry;
    if (entry) queue.insert({*entry, r});
  };
  const auto put_bound = [&](int r) {
    const double bound = bound_of(r);
    put(r, bound > 0 ? std::optional<Entry>(Entry{Step{bound, 0, {}, r, -1, false}, false, 0}) : std::nullopt);
  };
  std::vector<int> touched_nodes, touched_ranks;
  for (int step = 0; step < max_steps; ++step) {
    if (exhaustive || step == 0) {
      for (int n = 0; n < m.node_count; ++n) update_swap_gain(n);
      for (int r = 0; r < m.world; ++r) put_bound(r);
    }
    std::optional<Step> chosen;
    while (!queue.empty()) {
      const auto [entry, owner] = *queue.begin();
      if (entry.exact && entry.found == step) {
        chosen = entry.step;
        break;
      }
      const auto best = best_step_of(owner);
      put(owner, best ? std::optional<Entry>(Entry{*best, true, step}) : std::nullopt);
    }
    if (!chosen) break;
    const int from = a[at(chosen->r)], to = chosen->swap ? a[at(chosen->other)] : chosen->other;
    if (chosen->swap) {
      apply(chosen->r, to);
      apply(chosen->other, from);
    } else {
      apply(chosen->r, to);
    }
    if (exhaustive) continue;
    touched_nodes = {from, to};
    touched_ranks.clear();
    for (const int moved : {chosen->r, chosen->swap ? chosen->other : -1}) {
      if (moved < 0) continue;
      touched_ranks.push_back(moved);
      for (const auto& partner : m.partners_of(moved)) {
        touched_ranks.push_back(partner.rank);
        touched_nodes.push_back(a[at(partner.rank)]);
      }
    }
    for (const int n : {from, to})
      touched_ranks.insert(touched_ranks.end(), ranks_on[at(n)].begin(), ranks_on[at(n)].end());
    std::sort(touched_nodes.begin(), touched_nodes.end());
    touched_nodes.erase(std::unique(touched_nodes.begin(), touched_nodes.end()), touched_nodes.end());
    std::sort(touched_ranks.begin(), touched_ranks.end());
    touched_ranks.erase(std::unique(touched_ranks.begin(), touched_ranks.end()), touched_ranks.end());
    for (const int n : touched_nodes) update_swap_gain(n);
    for (const int r : touched_ranks) put_bound(r);
  }
  for (int r = 0; r < m.world; ++r)
    if (kept[at(r)] >= 0 && a[at(r)] != kept[at(r)]) extra_moved.push_back(r);
  return extra_moved;
}

}  // namespace yadokari::scheduler::detail
