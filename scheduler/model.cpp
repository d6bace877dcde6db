#include "scheduler/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace yadokari::scheduler::detail {

namespace {

std::string plural(long count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

bool positive_finite(double value) { return std::isfinite(value) && value > 0; }

void validate(const Job& job, const std::vector<Node>& nodes, const CurrentPlacement& current, const Options& options) {
  const long w = job.world_size;
  if (w < 1) throw PlacementError("the job has no ranks to place (world size " + std::to_string(w) + ")");
  if (!job.compute_seconds.empty() && static_cast<long>(job.compute_seconds.size()) != w)
    throw PlacementError("compute times are given for " + std::to_string(job.compute_seconds.size()) +
                         " ranks of a job of " + std::to_string(w));
  for (std::size_t r = 0; r < job.compute_seconds.size(); ++r) {
    const auto& t = job.compute_seconds[r];
    if (t && !(std::isfinite(*t) && *t >= 0))
      throw PlacementError("rank " + std::to_string(r) + "'s compute time is " + number("%g", *t) +
                           " s; it must be a finite number of at least 0");
  }
  const auto& rows = job.traffic.rows;
  if (!rows.empty() && static_cast<long>(rows.size()) != w)
    throw PlacementError("the traffic matrix has " + std::to_string(rows.size()) + " rows; a job of " +
                         std::to_string(w) + " ranks needs " + std::to_string(w));
  for (std::size_t from = 0; from < rows.size(); ++from)
    for (const TrafficEntry& entry : rows[from])
      if (entry.to < 0 || entry.to >= w)
        throw PlacementError("rank " + std::to_string(from) + "'s traffic names rank " + std::to_string(entry.to) +
                             ", which a job of " + std::to_string(w) + " ranks does not have");
  if (nodes.empty()) throw PlacementError("no nodes were given to place " + plural(w, "rank", "ranks") + " on");
  std::map<std::string, int> seen;
  for (const Node& node : nodes) {
    if (node.name.empty()) throw PlacementError("a node has an empty name");
    if (seen[node.name]++) throw PlacementError("node '" + node.name + "' appears twice in the node list");
    if (node.slots < 0) throw PlacementError("node '" + node.name + "' has " + std::to_string(node.slots) + " slots");
    if (node.speed && !positive_finite(*node.speed))
      throw PlacementError("node '" + node.name + "' has speed " + number("%g", *node.speed) +
                           "; a speed must be greater than 0");
  }
  if (!current.empty() && static_cast<long>(current.size()) != w)
    throw PlacementError("the current placement lists " + std::to_string(current.size()) + " ranks for a job of " +
                         std::to_string(w));
  if (!(std::isfinite(options.max_oversubscribe) && options.max_oversubscribe >= 1))
    throw PlacementError("the allowed oversubscription must be at least 1, not " +
                         number("%g", options.max_oversubscribe));
  const CostParameters& c = options.cost;
  if (!positive_finite(c.intra_bandwidth_Bps) || !positive_finite(c.inter_bandwidth_Bps))
    throw PlacementError("cost model bandwidths must be greater than 0");
  if (!(std::isfinite(c.intra_latency_s) && c.intra_latency_s >= 0 && std::isfinite(c.inter_latency_s) &&
        c.inter_latency_s >= 0))
    throw PlacementError("cost model latencies must be at least 0");
  if (!(std::isfinite(c.oversubscription_penalty) && c.oversubscription_penalty >= 1))
    throw PlacementError("the oversubscription penalty must be at least 1, not " +
                         number("%g", c.oversubscription_penalty));
  if (options.comm_max_extra_moves < 0 || !(std::isfinite(options.comm_min_gain) && options.comm_min_gain >= 0))
    throw PlacementError("comm_max_extra_moves and comm_min_gain must be at least 0");
}

}  // namespace

std::string number(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

Model::Model(const Job& job_, const std::vector<Node>& nodes_, const CurrentPlacement& current_,
             const Options& options_)
    : job(job_), nodes(nodes_), options(options_) {
  validate(job, nodes, current_, options);
  world = job.world_size;
  node_count = static_cast<int>(nodes.size());
  const auto n_count = static_cast<std::size_t>(node_count);
  const auto w_count = static_cast<std::size_t>(world);

  by_name.resize(n_count);
  for (int n = 0; n < node_count; ++n) by_name[static_cast<std::size_t>(n)] = n;
  std::sort(by_name.begin(), by_name.end(), [&](int a, int b) { return name(a) < name(b); });
  rank_of_name.resize(n_count);
  for (std::size_t i = 0; i < n_count; ++i) rank_of_name[static_cast<std::size_t>(by_name[i])] = static_cast<int>(i);

  std::map<std::string, int> index;
  for (int n = 0; n < node_count; ++n) index[name(n)] = n;
  current.assign(w_count, -1);
  was_placed.assign(w_count, false);
  for (std::size_t r = 0; r < current_.size(); ++r) {
    was_placed[r] = !current_[r].empty();
    const auto it = index.find(current_[r]);
    if (it != index.end()) current[r] = it->second;
  }

  capacity.assign(n_count, 0);
  long total_slots = 0, total_capacity = 0;
  int alive_nodes = 0;
  for (int n = 0; n < node_count; ++n) {
    if (!alive(n)) continue;
    ++alive_nodes;
    capacity[static_cast<std::size_t>(n)] = static_cast<int>(std::floor(slots(n) * options.max_oversubscribe + 1e-9));
    total_slots += slots(n);
    total_capacity += capacity[static_cast<std::size_t>(n)];
  }
  if (alive_nodes == 0) throw PlacementError("no node is alive to place " + plural(world, "rank", "ranks") + " on");
  if (total_capacity < world) {
    const std::string nodes_text =
        alive_nodes == 1 ? "the surviving node has " : "the " + std::to_string(alive_nodes) + " surviving nodes have ";
    throw PlacementError(nodes_text + plural(total_slots, "slot", "slots") + " for " + plural(world, "rank", "ranks") +
                         " (allowed oversubscription " + number("%g", options.max_oversubscribe) + "x gives " +
                         std::to_string(total_capacity) + ")");
  }

  // Speeds: measured, else inferred from the compute times of the ranks each node hosted under
  // the assumption that ranks do similar work (SPMD), else 1.
  const auto measured = [&](std::size_t r) -> std::optional<double> {
    return job.compute_seconds.empty() ? std::nullopt : job.compute_seconds[r];
  };
  std::vector<double> sum(n_count, 0.0);
  std::vector<int> cnt(n_count, 0);
  double ref_sum = 0;
  int ref_cnt = 0;
  for (std::size_t r = 0; r < w_count; ++r) {
    const int n = current[r];
    const auto t = measured(r);
    if (n < 0 || !t || *t <= 0 || nodes[static_cast<std::size_t>(n)].speed) continue;
    sum[static_cast<std::size_t>(n)] += *t;
    ++cnt[static_cast<std::size_t>(n)];
    ref_sum += *t;
    ++ref_cnt;
  }
  speed.assign(n_count, 1.0);
  speed_inferred.assign(n_count, false);
  for (std::size_t n = 0; n < n_count; ++n) {
    if (nodes[n].speed) {
      speed[n] = *nodes[n].speed;
    } else if (cnt[n] > 0) {
      speed[n] = (ref_sum / ref_cnt) / (sum[n] / cnt[n]);
      speed_inferred[n] = true;
    }
  }

  // Work per rank in seconds at speed 1; unmeasured ranks get the mean of the measured ones.
  work.assign(w_count, 0.0);
  std::vector<bool> known(w_count, false);
  double work_sum = 0;
  int work_cnt = 0;
  for (std::size_t r = 0; r < w_count; ++r) {
    const auto t = measured(r);
    if (!t) continue;
    const int n = current[r];
    work[r] = *t * (n >= 0 ? speed[static_cast<std::size_t>(n)] : 1.0);
    known[r] = true;
    work_sum += work[r];
    ++work_cnt;
  }
  compute_known = work_cnt > 0;
  for (std::size_t r = 0; r < w_count; ++r)
    if (!known[r] && compute_known) work[r] = work_sum / work_cnt;

  // Partners, both directions summed: each entry goes into the rows of both of its ranks.
  if (has_traffic()) {
    partners.resize(w_count);
    for (std::size_t from = 0; from < w_count; ++from)
      for (const TrafficEntry& e : job.traffic.rows[from]) {
        if (e.to == static_cast<int>(from) || (e.bytes == 0 && e.messages == 0)) continue;
        partners[from].push_back({e.to, e.bytes, e.messages});
        partners[static_cast<std::size_t>(e.to)].push_back({static_cast<int>(from), e.bytes, e.messages});
      }
    for (auto& list : partners) {
      std::sort(list.begin(), list.end(), [](const Partner& x, const Partner& y) { return x.rank < y.rank; });
      std::size_t kept = 0;
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (kept > 0 && list[kept - 1].rank == list[i].rank) {
          list[kept - 1].bytes += list[i].bytes;
          list[kept - 1].messages += list[i].messages;
        } else {
          list[kept++] = list[i];
        }
      }
      list.resize(kept);
    }
  }
}

std::uint64_t Model::bytes(int a, int b) const {
  if (partners.empty() || a == b) return 0;
  const auto& list = partners_of(a);
  const auto it = std::lower_bound(list.begin(), list.end(), b, [](const Partner& p, int r) { return p.rank < r; });
  return it != list.end() && it->rank == b ? it->bytes : 0;
}

std::vector<int> counts_of(const Model& model, const Assignment& assignment) {
  std::vector<int> counts(static_cast<std::size_t>(model.node_count), 0);
  for (const int n : assignment)
    if (n >= 0) ++counts[static_cast<std::size_t>(n)];
  return counts;
}

Assignment survivors(const Model& model) {
  Assignment assignment(static_cast<std::size_t>(model.world), -1);
  std::vector<int> counts(static_cast<std::size_t>(model.node_count), 0);
  for (int r = 0; r < model.world; ++r) {
    if (!model.survives(r)) continue;
    const int n = model.current[static_cast<std::size_t>(r)];
    if (counts[static_cast<std::size_t>(n)] >= model.capacity[static_cast<std::size_t>(n)]) continue;
    ++counts[static_cast<std::size_t>(n)];
    assignment[static_cast<std::size_t>(r)] = n;
  }
  return assignment;
}

std::uint64_t inter_node_bytes(const Model& model, const Assignment& assignment) {
  std::uint64_t total = 0;
  if (model.partners.empty()) return 0;
  for (int a = 0; a < model.world; ++a)
    for (const auto& p : model.partners_of(a))
      if (p.rank > a && assignment[static_cast<std::size_t>(a)] != assignment[static_cast<std::size_t>(p.rank)])
        total += p.bytes;
  return total;
}

Cost cost_of(const Model& model, const Assignment& assignment) {
  Cost cost;
  cost.compute_known = model.compute_known;
  const auto n_count = static_cast<std::size_t>(model.node_count);
  if (model.compute_known) {
    std::vector<double> max_work(n_count, 0.0), sum_work(n_count, 0.0);
    std::vector<int> count(n_count, 0);
    for (int r = 0; r < model.world; ++r) {
      const auto n = static_cast<std::size_t>(assignment[static_cast<std::size_t>(r)]);
      max_work[n] = std::max(max_work[n], model.work[static_cast<std::size_t>(r)]);
      sum_work[n] += model.work[static_cast<std::size_t>(r)];
      ++count[n];
    }
    for (std::size_t n = 0; n < n_count; ++n) {
      if (count[n] == 0) continue;
      const int slots = std::max(1, model.slots(static_cast<int>(n)));
      double t = std::max(max_work[n], sum_work[n] / slots) / model.speed[n];
      if (count[n] > slots) t *= model.options.cost.oversubscription_penalty;
      cost.compute_s = std::max(cost.compute_s, t);
    }
  }
  if (model.has_traffic()) {
    const CostParameters& p = model.options.cost;
    for (int a = 0; a < model.world; ++a) {
      for (const auto& partner : model.partners_of(a)) {
        if (partner.rank <= a) continue;
        const std::uint64_t bytes = partner.bytes, messages = partner.messages;
        const bool same = assignment[static_cast<std::size_t>(a)] == assignment[static_cast<std::size_t>(partner.rank)];
        cost.communication_s += same ? bytes / p.intra_bandwidth_Bps + messages * p.intra_latency_s
                                     : bytes / p.inter_bandwidth_Bps + messages * p.inter_latency_s;
        if (!same) cost.inter_node_bytes += bytes;
      }
    }
  }
  cost.total_s = cost.compute_s + cost.communication_s;
  return cost;
}

Placement finish(const Model& model, const Assignment& assignment, std::string policy, std::string explanation) {
  const auto counts = counts_of(model, assignment);
  for (int r = 0; r < model.world; ++r) {
    const int n = assignment[static_cast<std::size_t>(r)];
    if (n < 0 || !model.alive(n))
      throw std::logic_error("scheduler: policy " + policy + " left rank " + std::to_string(r) +
                             " without a live node");
  }
  for (int n = 0; n < model.node_count; ++n)
    if (counts[static_cast<std::size_t>(n)] > model.capacity[static_cast<std::size_t>(n)])
      throw std::logic_error("scheduler: policy " + policy + " exceeded the capacity of " + model.name(n));

  Placement out;
  out.policy = std::move(policy);
  out.explanation = std::move(explanation);
  out.node_of_rank.reserve(static_cast<std::size_t>(model.world));
  std::vector<std::vector<int>> ranks_on(static_cast<std::size_t>(model.node_count));
  for (int r = 0; r < model.world; ++r) {
    const int n = assignment[static_cast<std::size_t>(r)];
    out.node_of_rank.push_back(model.name(n));
    ranks_on[static_cast<std::size_t>(n)].push_back(r);  // ascending
    if (model.was_placed[static_cast<std::size_t>(r)] && model.current[static_cast<std::size_t>(r)] != n)
      out.moved.push_back(r);
  }
  std::vector<int> order;
  for (int n = 0; n < model.node_count; ++n)
    if (!ranks_on[static_cast<std::size_t>(n)].empty()) order.push_back(n);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return ranks_on[static_cast<std::size_t>(a)].front() < ranks_on[static_cast<std::size_t>(b)].front();
  });
  for (const int n : order) {
    const auto& ranks = ranks_on[static_cast<std::size_t>(n)];
    out.hosts.push_back({model.name(n), static_cast<int>(ranks.size())});
    out.rank_map.insert(out.rank_map.end(), ranks.begin(), ranks.end());
  }
  out.cost = cost_of(model, assignment);
  return out;
}

}  // namespace yadokari::scheduler::detail

namespace yadokari::scheduler {

std::string rank_list(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  std::string text;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(ranks[i]);
    if (j > i) text += (j == i + 1 ? "," : "-") + std::to_string(ranks[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace yadokari::scheduler
