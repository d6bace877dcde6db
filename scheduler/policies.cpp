// The placement policies. Each works on the index view (detail::Model) and returns an assignment
// plus its explanation; place() validates the result and builds the Placement.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "scheduler/comm_search.hpp"
#include "scheduler/free_slot_queue.hpp"
#include "scheduler/model.hpp"
#include "scheduler/placement.hpp"

namespace yadokari::scheduler {

namespace {

using detail::Assignment;
using detail::Model;
using detail::number;

struct Result {
  Assignment assignment;
  std::string explanation;
};

std::size_t at(int i) { return static_cast<std::size_t>(i); }

std::vector<int> unplaced(const Assignment& assignment) {
  std::vector<int> ranks;
  for (std::size_t r = 0; r < assignment.size(); ++r)
    if (assignment[r] < 0) ranks.push_back(static_cast<int>(r));
  return ranks;
}

bool oversubscribes(const Model& m, const Assignment& a) {
  const auto counts = detail::counts_of(m, a);
  for (int n = 0; n < m.node_count; ++n)
    if (counts[at(n)] > m.slots(n)) return true;
  return false;
}

// The live node with the most free slots (slots - ranks, may be negative) that can still take
// `need` ranks within its capacity; ties go to the lowest name. -1 if none.
int most_free(const Model& m, const std::vector<int>& counts, int need = 1) {
  int best = -1;
  for (const int n : m.by_name) {
    if (!m.alive(n) || counts[at(n)] + need > m.capacity[at(n)]) continue;
    if (best < 0 || m.slots(n) - counts[at(n)] > m.slots(best) - counts[at(best)]) best = n;
  }
  return best;
}

// Why ranks are displaced, after "ranks ": "of lost node b (4-6)", "not placed yet (0-7)",
// "over capacity on a (3)".
std::string origins(const Model& m, const std::vector<int>& ranks) {
  std::map<std::string, std::vector<int>> by_origin;
  for (const int r : ranks) {
    const int was = m.current[at(r)];
    std::string key;
    if (was >= 0 && m.alive(was))
      key = "over capacity on " + m.name(was);
    else if (was >= 0)
      key = "of lost node " + m.name(was);
    else if (m.was_placed[at(r)])
      key = "of a node no longer listed";
    else
      key = "not placed yet";
    by_origin[key].push_back(r);
  }
  std::string text;
  for (const auto& [key, list] : by_origin) {
    if (!text.empty()) text += ", ";
    text += key + " (" + rank_list(list) + ")";
  }
  return text;
}

// "4,6 -> remote-a; 5 -> host" for the given ranks, targets in name order.
std::string targets(const Model& m, const Assignment& a, const std::vector<int>& ranks) {
  std::vector<std::vector<int>> on(at(m.node_count));
  for (const int r : ranks) on[at(a[at(r)])].push_back(r);
  std::string text;
  for (const int n : m.by_name) {
    if (on[at(n)].empty()) continue;
    if (!text.empty()) text += "; ";
    text += rank_list(on[at(n)]) + " -> " + m.name(n);
  }
  return text;
}

std::string stayed(const Model& m, const Assignment& a) {
  int count = 0;
  for (int r = 0; r < m.world; ++r)
    if (m.current[at(r)] >= 0 && a[at(r)] == m.current[at(r)]) ++count;
  return std::to_string(count) + (count == 1 ? " rank stayed" : " ranks stayed");
}

std::string bytes_text(double bytes) {
  if (bytes >= 1e9) return number("%.3g GB", bytes / 1e9);
  if (bytes >= 1e6) return number("%.3g MB", bytes / 1e6);
  if (bytes >= 1e3) return number("%.3g kB", bytes / 1e3);
  return number("%.0f B", bytes);
}

// --- node ----------------------------------------------------------------------------------------

Result node_policy(const Model& m) {
  Assignment a = detail::survivors(m);
  auto counts = detail::counts_of(m, a);
  const std::vector<int> displaced = unplaced(a);
  // Groups: the ranks of each former node (lost, or over its capacity), in node-name order; ranks
  // with no former node go one by one.
  std::map<int, std::vector<int>> groups;  // key: position of the former node in name order
  std::vector<int> loose;
  for (const int r : displaced) {
    const int was = m.current[at(r)];
    if (was >= 0)
      groups[m.rank_of_name[at(was)]].push_back(r);
    else
      loose.push_back(r);
  }
  std::string text = "node: ";
  bool first = true;
  for (const auto& [position, ranks] : groups) {
    const int from = m.by_name[at(position)];
    const int size = static_cast<int>(ranks.size());
    text += first ? "" : "; ";
    first = false;
    text += "the " + std::to_string(size) + (size == 1 ? " rank" : " ranks") + " of " +
            (m.alive(from) ? "over-full node " : "lost node ") + m.name(from) + " (" + rank_list(ranks) + ")";
    const int target = most_free(m, counts, size);
    if (target >= 0) {
      const int free_slots = m.slots(target) - counts[at(target)];
      for (const int r : ranks) a[at(r)] = target;
      counts[at(target)] += size;
      text += " moved together to " + m.name(target) + ", the node with the most free slots (" +
              std::to_string(free_slots) + ")";
    } else {
      for (const int r : ranks) {
        const int n = most_free(m, counts);
        a[at(r)] = n;
        ++counts[at(n)];
      }
      text += " fit on no single node within the allowed oversubscription, so were split: " + targets(m, a, ranks);
    }
  }
  if (!loose.empty()) {
    detail::FreeSlotQueue queue(m, counts);
    for (const int r : loose) a[at(r)] = queue.take();
    counts = queue.counts();
    text += std::string(first ? "" : "; ") + "ranks " + origins(m, loose) +
            " placed one by one on the node with the most free slots: " + targets(m, a, loose);
    first = false;
  }
  if (first) text += "no rank was displaced";
  text += "; " + stayed(m, a) + ".";
  return {std::move(a), std::move(text)};
}

// --- balanced ------------------------------------------------------------------------------------

Result balanced_policy(const Model& m) {
  Assignment a = detail::survivors(m);
  const std::vector<int> displaced = unplaced(a);
  detail::FreeSlotQueue queue(m, detail::counts_of(m, a));
  for (const int r : displaced) a[at(r)] = queue.take();
  std::string text = "balanced: ";
  if (displaced.empty())
    text += "no rank was displaced";
  else
    text += "ranks " + origins(m, displaced) +
            " placed one by one on the node with the most free slots: " + targets(m, a, displaced);
  text += "; " + stayed(m, a) + ".";
  return {std::move(a), std::move(text)};
}

// --- comm ----------------------------------------------------------------------------------------

using detail::comm_fill;
using detail::comm_refine;

Result comm_policy(const Model& m) {
  const Assignment kept = detail::survivors(m);
  Assignment a = kept;
  const std::vector<int> displaced = unplaced(a);
  const std::vector<bool> all(at(m.node_count), true);
  comm_fill(m, a, all);
  const auto after_fill = detail::inter_node_bytes(m, a);
  const auto extra = comm_refine(m, a, kept, m.options.comm_max_extra_moves, all);
  std::string text = "comm: ";
  if (displaced.empty())
    text += "no rank was displaced";
  else
    text += "ranks " + origins(m, displaced) +
            (!m.has_traffic() ? " placed on the nodes with the most free slots (no traffic measured): "
                              : " placed next to the partners they exchange the most bytes with: ") +
            targets(m, a, displaced);
  if (!extra.empty())
    text += "; also moved " + rank_list(extra) + " (" + targets(m, a, extra) +
            ") because it cut inter-node traffic from " + bytes_text(static_cast<double>(after_fill)) + " to " +
            bytes_text(static_cast<double>(detail::inter_node_bytes(m, a))) + " per epoch";
  if (m.has_traffic())
    text += "; inter-node traffic " + bytes_text(static_cast<double>(detail::inter_node_bytes(m, a))) + " per epoch";
  text += "; " + stayed(m, a) + ".";
  return {std::move(a), std::move(text)};
}

// --- speed ---------------------------------------------------------------------------------------

Result speed_policy(const Model& m) {
  Assignment a = detail::survivors(m);
  const auto kept_counts = detail::counts_of(m, a);
  double mean_work = 1.0;
  if (m.compute_known) {
    double sum = 0;
    for (const double w : m.work) sum += w;
    mean_work = sum / m.world > 0 ? sum / m.world : 1.0;
  }
  const auto time = [&](int n, int k) {
    if (k == 0) return 0.0;
    const int slots = std::max(1, m.slots(n));
    double t = mean_work * std::max(1.0, static_cast<double>(k) / slots) / m.speed[at(n)];
    if (k > slots) t *= m.options.cost.oversubscription_penalty;
    return t;
  };
  // Water-filling: each next rank goes where the node's predicted time grows least. This gives
  // slow nodes fewer ranks, in proportion to speed × slots once the nodes are full. The nodes wait
  // in a set ordered by (time of one more rank, keeps one of its own ranks, free slots, name), so
  // a rank costs O(log nodes) instead of a scan of every node (1 s at 16,384 ranks).
  std::vector<int> target(at(m.node_count), 0);
  using Key = std::tuple<double, int, int, int, int>;  // time, -keeps, -free, name order, node
  const auto key = [&](int n) {
    return Key{time(n, target[at(n)] + 1), target[at(n)] < kept_counts[at(n)] ? -1 : 0, target[at(n)] - m.slots(n),
               m.rank_of_name[at(n)], n};
  };
  std::set<Key> queue;
  for (int n = 0; n < m.node_count; ++n)
    if (m.alive(n) && m.capacity[at(n)] > 0) queue.insert(key(n));
  for (int i = 0; i < m.world; ++i) {
    auto best = queue.begin();
    // Times within 1e-12 of the least count as equal (rounding): the other keys decide among them.
    const double least = std::get<0>(*best);
    for (auto it = queue.upper_bound(Key{least, 1, m.world + 1, m.node_count, 0});
         it != queue.end() && std::get<0>(*it) <= least + 1e-12 * std::get<0>(*it); ++it)
      if (std::tie(std::get<1>(*it), std::get<2>(*it), std::get<3>(*it)) <
          std::tie(std::get<1>(*best), std::get<2>(*best), std::get<3>(*best)))
        best = it;
    const int n = std::get<4>(*best);
    queue.erase(best);
    if (++target[at(n)] < m.capacity[at(n)]) queue.insert(key(n));
  }
  // Nodes above target give up their highest ranks.
  auto counts = kept_counts;
  for (int r = m.world - 1; r >= 0; --r) {
    const int n = a[at(r)];
    if (n >= 0 && counts[at(n)] > target[at(n)]) {
      --counts[at(n)];
      a[at(r)] = -1;
    }
  }
  std::vector<int> displaced = unplaced(a);
  // Heaviest ranks first, each to the fastest node still below target.
  std::vector<int> order = displaced;
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return m.work[at(x)] > m.work[at(y)]; });
  for (const int r : order) {
    int best = -1;
    for (const int n : m.by_name) {
      if (counts[at(n)] >= target[at(n)]) continue;
      if (best < 0 || m.speed[at(n)] > m.speed[at(best)] ||
          (m.speed[at(n)] == m.speed[at(best)] && target[at(n)] - counts[at(n)] > target[at(best)] - counts[at(best)]))
        best = n;
    }
    a[at(r)] = best;
    ++counts[at(best)];
  }
  std::string text = "speed: node speeds ";
  bool any_measured = false;
  std::string speeds, targets_text;
  for (const int n : m.by_name) {
    if (!m.alive(n)) continue;
    const bool measured = m.nodes[at(n)].speed.has_value() || m.speed_inferred[at(n)];
    any_measured = any_measured || measured;
    speeds += (speeds.empty() ? "" : ", ") + m.name(n) + " " + number("%.3g", m.speed[at(n)]) +
              (m.speed_inferred[at(n)] ? " (inferred)"
               : measured              ? ""
                                       : " (not measured)");
    targets_text += (targets_text.empty() ? "" : ", ") + m.name(n) + " " + std::to_string(target[at(n)]) + "/" +
                    std::to_string(m.slots(n));
  }
  text += speeds + "; ranks per node (ranks/slots) " + targets_text;
  if (!any_measured) text += " (no speed measured: all nodes count as equal)";
  if (!displaced.empty()) text += "; moved ranks " + origins(m, displaced) + ": " + targets(m, a, displaced);
  text += "; " + stayed(m, a) + ".";
  return {std::move(a), std::move(text)};
}

// --- consolidate (a candidate of auto) -----------------------------------------------------------

Result consolidate_candidate(const Model& m) {
  const Assignment kept = detail::survivors(m);
  const auto kept_counts = detail::counts_of(m, kept);
  std::vector<int> alive;
  for (const int n : m.by_name)
    if (m.alive(n)) alive.push_back(n);
  const auto prefix = [&](std::vector<int> order) {
    std::vector<int> chosen;
    long total = 0;
    for (const int n : order) {
      if (total >= m.world) break;
      chosen.push_back(n);
      total += m.capacity[at(n)];
    }
    return chosen;
  };
  auto by_kept = alive, by_capacity = alive;
  std::stable_sort(by_kept.begin(), by_kept.end(), [&](int x, int y) {
    if (kept_counts[at(x)] != kept_counts[at(y)]) return kept_counts[at(x)] > kept_counts[at(y)];
    return m.capacity[at(x)] > m.capacity[at(y)];
  });
  std::stable_sort(by_capacity.begin(), by_capacity.end(), [&](int x, int y) {
    if (m.capacity[at(x)] != m.capacity[at(y)]) return m.capacity[at(x)] > m.capacity[at(y)];
    return kept_counts[at(x)] > kept_counts[at(y)];
  });
  auto chosen = prefix(by_kept);
  if (const auto fewest = prefix(by_capacity); fewest.size() < chosen.size()) chosen = fewest;
  std::vector<bool> allowed(at(m.node_count), false);
  for (const int n : chosen) allowed[at(n)] = true;
  Assignment a = kept;
  for (auto& n : a)
    if (n >= 0 && !allowed[at(n)]) n = -1;
  const Assignment stay = a;
  comm_fill(m, a, allowed);
  comm_refine(m, a, stay, 0, allowed);
  std::vector<std::string> names;
  for (const int n : m.by_name)
    if (allowed[at(n)]) names.push_back(m.name(n));
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
  const std::vector<int> moved = unplaced(stay);
  std::string text =
      "consolidate: all ranks on the fewest nodes that hold them within the allowed "
      "oversubscription (" +
      list + "), heavy partners together; moved " + (moved.empty() ? std::string("none") : targets(m, a, moved)) + ".";
  return {std::move(a), std::move(text)};
}

// --- auto ----------------------------------------------------------------------------------------

struct Candidate {
  std::string name;
  Result result;
  Cost cost;
  int moved = 0;
  bool oversubscribed = false;
  std::vector<std::string> same_as;  // other candidates that produced the same assignment
};

std::string cost_text(const Cost& c) {
  if (!c.compute_known) return number("communication %.3g s", c.communication_s);
  return number("%.3g s", c.total_s) + " (compute " + number("%.3g s", c.compute_s) + " + communication " +
         number("%.3g s", c.communication_s) + ")";
}

Result auto_policy(const Model& m) {
  const std::vector<std::pair<std::string, Result (*)(const Model&)>> makers = {{"balanced", balanced_policy},
                                                                                {"comm", comm_policy},
                                                                                {"speed", speed_policy},
                                                                                {"node", node_policy},
                                                                                {"consolidate", consolidate_candidate}};
  std::vector<Candidate> candidates;
  for (const auto& [name, make] : makers) {
    Result r = make(m);
    bool duplicate = false;
    for (auto& c : candidates)
      if (c.result.assignment == r.assignment) {
        c.same_as.push_back(name);
        duplicate = true;
      }
    if (duplicate) continue;
    Candidate c{name, std::move(r), {}, 0, false, {}};
    c.cost = detail::cost_of(m, c.result.assignment);
    for (int x = 0; x < m.world; ++x)
      if (m.was_placed[at(x)] && m.current[at(x)] != c.result.assignment[at(x)]) ++c.moved;
    c.oversubscribed = oversubscribes(m, c.result.assignment);
    candidates.push_back(std::move(c));
  }
  // Without compute times the model cannot weigh shared cores against traffic: keep a core per
  // rank when some candidate can.
  bool refuse_oversubscription = false;
  if (!m.compute_known)
    for (const auto& c : candidates)
      if (!c.oversubscribed) refuse_oversubscription = true;
  const auto eligible = [&](const Candidate& c) { return !(refuse_oversubscription && c.oversubscribed); };
  const auto better = [](const Candidate& x, const Candidate& y) {
    const double eps = 1e-9 * std::max({x.cost.total_s, y.cost.total_s, 1e-300});
    if (x.cost.total_s < y.cost.total_s - eps) return true;
    if (x.cost.total_s > y.cost.total_s + eps) return false;
    return x.moved < y.moved;  // then candidate order (stable)
  };
  std::vector<const Candidate*> ranked;
  for (const auto& c : candidates)
    if (eligible(c)) ranked.push_back(&c);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](const Candidate* x, const Candidate* y) { return better(*x, *y); });
  const Candidate& best = *ranked.front();

  std::string text = "auto: chose " + best.name;
  if (!best.same_as.empty()) {
    text += " (same as";
    for (std::size_t i = 0; i < best.same_as.size(); ++i) text += (i ? ", " : " ") + best.same_as[i];
    text += ")";
  }
  text += ", predicted " + cost_text(best.cost) + " per epoch, " + std::to_string(best.moved) +
          (best.moved == 1 ? " rank moved" : " ranks moved");
  if (ranked.size() > 1) {
    const Candidate& next = *ranked[1];
    const double d_compute = next.cost.compute_s - best.cost.compute_s;
    const double d_comm = next.cost.communication_s - best.cost.communication_s;
    text += ". Runner-up " + next.name + ": " + cost_text(next.cost);
    if (best.cost.total_s < next.cost.total_s) {
      text += "; " + best.name + " is cheaper because ";
      const double tiny = 1e-9 * next.cost.total_s;
      if (std::abs(d_comm) <= tiny)
        text += "it saves " + number("%.3g s", d_compute) + " of compute";
      else if (std::abs(d_compute) <= tiny)
        text += "it saves " + number("%.3g s", d_comm) + " of communication";
      else if (d_comm > 0 && d_compute < 0)
        text += "it saves " + number("%.3g s", d_comm) + " of communication for " + number("%.3g s", -d_compute) +
                " more compute (communication-bound: sharing cores beats crossing the network)";
      else if (d_compute > 0 && d_comm < 0)
        text += "it saves " + number("%.3g s", d_compute) + " of compute for " + number("%.3g s", -d_comm) +
                " more communication (compute-bound: a core per rank beats co-location)";
      else
        text += "it saves " + number("%.3g s", d_compute) + " of compute and " + number("%.3g s", d_comm) +
                " of communication";
    } else {
      text +=
          "; equal predicted cost, so the one moving fewer ranks (then the earlier in balanced, comm, speed, "
          "node, consolidate) wins";
    }
  }
  if (!m.compute_known && !m.has_traffic())
    text += ". Neither compute times nor traffic were measured, so only the moved ranks decide";
  else if (!m.compute_known)
    text += ". No compute time was measured, so placements that oversubscribe a node were not considered";
  std::vector<std::string> others;
  for (std::size_t i = 2; i < ranked.size(); ++i) others.push_back(ranked[i]->name + " " + cost_text(ranked[i]->cost));
  for (const auto& c : candidates)
    if (!eligible(c)) others.push_back(c.name + " " + cost_text(c.cost) + ", oversubscribes");
  if (!others.empty()) {
    text += ". Others:";
    for (std::size_t i = 0; i < others.size(); ++i) text += (i ? "; " : " ") + others[i];
  }
  text += ".";
  text += " [" + best.result.explanation + "]";
  return {best.result.assignment, text};
}

}  // namespace

Placement place(Policy policy, const Job& job, const std::vector<Node>& nodes, const CurrentPlacement& current,
                const Options& options) {
  const Model m(job, nodes, current, options);
  Result r;
  std::string name(policy_name(policy));
  switch (policy) {
    case Policy::node:
      r = node_policy(m);
      break;
    case Policy::balanced:
      r = balanced_policy(m);
      break;
    case Policy::comm:
      r = comm_policy(m);
      break;
    case Policy::speed:
      r = speed_policy(m);
      break;
    case Policy::auto_: {
      r = auto_policy(m);
      // "auto: chose <candidate>..." names the candidate.
      const auto start = std::string("auto: chose ").size();
      name = "auto(" + r.explanation.substr(start, r.explanation.find_first_of(" ,", start) - start) + ")";
      break;
    }
  }
  return detail::finish(m, r.assignment, std::move(name), std::move(r.explanation));
}

Cost predict_cost(const Job& job, const std::vector<Node>& nodes, const CurrentPlacement& current,
                  const std::vector<std::string>& node_of_rank, const Options& options) {
  const Model m(job, nodes, current, options);
  if (static_cast<int>(node_of_rank.size()) != m.world)
    throw PlacementError("the placement lists " + std::to_string(node_of_rank.size()) + " ranks for a job of " +
                         std::to_string(m.world));
  std::map<std::string, int> index;
  for (int n = 0; n < m.node_count; ++n) index[m.name(n)] = n;
  Assignment a;
  for (std::size_t r = 0; r < node_of_rank.size(); ++r) {
    const auto it = index.find(node_of_rank[r]);
    if (it == index.end())
      throw PlacementError("rank " + std::to_string(r) + " is placed on unknown node '" + node_of_rank[r] + "'");
    a.push_back(it->second);
  }
  return detail::cost_of(m, a);
}

std::string rank_map_string(const Placement& placement) {
  std::string text;
  for (const int r : placement.rank_map) text += (text.empty() ? "" : ",") + std::to_string(r);
  return text;
}

}  // namespace yadokari::scheduler
