#include "runtime/frontend/restart_plan.hpp"

#include <cstdio>
#include <map>

namespace yadokari::frontend {

RestartPlan plan_restart(scheduler::Policy policy, int world_size, const std::vector<ClusterNode>& nodes,
                         const std::vector<std::string>& rank_hosts, double max_oversubscribe,
                         const scheduler::TrafficMatrix& traffic,
                         const std::vector<std::optional<double>>& compute_seconds) {
  scheduler::Job job;
  job.world_size = world_size;
  job.traffic = traffic;
  if (compute_seconds.size() == static_cast<std::size_t>(world_size)) job.compute_seconds = compute_seconds;
  std::vector<scheduler::Node> candidates;
  for (const auto& node : nodes) {
    scheduler::Node candidate;
    candidate.name = node.hostname;  // the scheduler's names go straight into the host list
    candidate.slots = node.slots;
    candidate.alive = node.alive;
    candidates.push_back(std::move(candidate));
  }
  scheduler::Options options;
  options.max_oversubscribe = max_oversubscribe;
  RestartPlan plan;
  plan.placement = scheduler::place(policy, job, candidates, rank_hosts, options);
  for (const auto& host : plan.placement.hosts) plan.hosts.push_back(launch::HostSlots{host.host, host.slots});
  plan.rank_map = scheduler::rank_map_string(plan.placement);
  return plan;
}

scheduler::TrafficMatrix traffic_matrix(const std::vector<std::vector<protocol::TrafficPartner>>& rows) {
  scheduler::TrafficMatrix traffic;
  traffic.rows.reserve(rows.size());
  for (const auto& row : rows) {
    auto& entries = traffic.rows.emplace_back();
    entries.reserve(row.size());
    for (const auto& partner : row) entries.push_back({partner.to, partner.bytes, partner.messages});
  }
  return traffic;
}

std::vector<std::optional<double>> compute_on_current_hosts(const std::vector<std::optional<double>>& seconds,
                                                            const std::vector<std::string>& measured_on,
                                                            const std::vector<std::string>& rank_hosts) {
  std::vector<std::optional<double>> here(rank_hosts.size());
  bool any = false;
  for (std::size_t r = 0; r < here.size() && r < seconds.size() && r < measured_on.size(); ++r) {
    if (!seconds[r] || rank_hosts[r].empty() || measured_on[r] != rank_hosts[r]) continue;
    here[r] = seconds[r];
    any = true;
  }
  return any ? here : std::vector<std::optional<double>>{};
}

namespace {}  // namespace

std::string compute_summary(const std::vector<std::optional<double>>& compute_seconds,
                            const std::vector<std::string>& rank_hosts) {
  struct HostSum {
    double seconds = 0.0;
    std::vector<int> ranks;
  };
  std::map<std::string, HostSum> by_host;  // ordered by name: the same line for the same input
  std::vector<int> unmeasured;
  for (std::size_t r = 0; r < rank_hosts.size(); ++r) {
    if (r < compute_seconds.size() && compute_seconds[r]) {
      auto& sum = by_host[rank_hosts[r]];
      sum.seconds += *compute_seconds[r];
      sum.ranks.push_back(static_cast<int>(r));
    } else {
      unmeasured.push_back(static_cast<int>(r));
    }
  }
  if (by_host.empty()) return {};
  std::string text;
  for (const auto& [host, sum] : by_host) {
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.3g", sum.seconds / static_cast<double>(sum.ranks.size()));
    text += (text.empty() ? "" : ", ") + host + " " + mean + " s (rank" + (sum.ranks.size() > 1 ? "s " : " ") +
            scheduler::rank_list(sum.ranks) + ")";
  }
  if (!unmeasured.empty())
    text += "; not measured: rank" + std::string(unmeasured.size() > 1 ? "s " : " ") + scheduler::rank_list(unmeasured);
  return text;
}

std::vector<std::string> node_id_of_rank(const RestartPlan& plan, const std::vector<ClusterNode>& nodes) {
  std::vector<std::string> ids;
  for (const auto& host : plan.placement.node_of_rank) {
    std::string id;
    for (const auto& node : nodes)
      if (node.hostname == host) id = node.id;
    ids.push_back(id);
  }
  return ids;
}

}  // namespace yadokari::frontend
