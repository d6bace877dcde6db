#include "bench/scale/plan_only.hpp"

#include <climits>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bench/scale/fake_nodes.hpp"
#include "bench/scale/front_end_meter.hpp"
#include "bench/scale/traffic_pattern.hpp"
#include "runtime/frontend/restart_plan.hpp"
#include "scheduler/placement_error.hpp"

namespace yadokari::bench::scale {
namespace {

// One epoch of the pattern, as the front end has it after two commits (the difference of the rows).
scheduler::TrafficMatrix one_epoch_of_traffic(const ScaleOptions& options) {
  if (options.traffic == TrafficPattern::none) return {};
  std::vector<std::vector<protocol::TrafficPartner>> rows;
  for (int r = 0; r < options.ranks; ++r) rows.push_back(traffic_row(options, r, 1).partners);
  return frontend::traffic_matrix(rows);
}

// The scheduler's inputs as frontend::plan_restart builds them, for the runs that need options of
// their own (the exhaustive refinement of --compare-exhaustive).
struct SchedulerInputs {
  scheduler::Job job;
  std::vector<scheduler::Node> nodes;
};

SchedulerInputs scheduler_inputs(const std::vector<frontend::ClusterNode>& cluster, int ranks,
                                 const scheduler::TrafficMatrix& traffic,
                                 const std::vector<std::optional<double>>& compute) {
  SchedulerInputs in;
  in.job.world_size = ranks;
  in.job.traffic = traffic;
  in.job.compute_seconds = compute;
  for (const auto& node : cluster) in.nodes.push_back({node.hostname, node.slots, node.alive, std::nullopt});
  return in;
}

}  // namespace

int run_plan_only(const ScaleOptions& options) {
  const int nodes = options.nodes();
  const int lost = nodes / 2;  // the node the full run silences
  std::vector<frontend::ClusterNode> cluster;
  for (int n = 0; n < nodes; ++n)
    cluster.push_back({node_id(n), node_hostname(n), options.ranks_per_node, n != lost, 0});
  std::vector<std::string> rank_hosts;
  for (int r = 0; r < options.ranks; ++r) rank_hosts.push_back(node_hostname(r / options.ranks_per_node));
  const std::vector<std::optional<double>> compute(static_cast<std::size_t>(options.ranks), 1.0);
  const auto before_inputs = read_meter();
  const scheduler::TrafficMatrix traffic = one_epoch_of_traffic(options);
  std::printf("plan only: %d ranks on %d nodes, traffic %s (built in %.3f s), node %s lost\n", options.ranks, nodes,
              pattern_name(options.traffic), cpu_between(before_inputs, read_meter()), node_id(lost).c_str());
  std::string result;
  int status = 0;
  for (const char* name : {"node", "balanced", "comm", "speed", "auto"}) {
    const auto from = read_meter();
    std::string outcome;
    std::uint64_t cut_bytes = 0;
    try {
      const auto plan = frontend::plan_restart(scheduler::parse_policy(name), options.ranks, cluster, rank_hosts, 2.0,
                                               traffic, compute);
      cut_bytes = plan.placement.cost.inter_node_bytes;
      outcome = plan.placement.policy + " moved " + std::to_string(plan.placement.moved.size()) +
                " ranks, inter-node " + std::to_string(cut_bytes) + " bytes";
    } catch (const scheduler::PlacementError& e) {
      outcome = std::string("refused: ") + e.what();
      status = 1;
    }
    const auto to = read_meter();
    std::printf("plan after the loss, policy %-8s %.4f s CPU, %.4f s wall (%s)\n", name, cpu_between(from, to),
                seconds_between(from, to), outcome.c_str());
    result += " plan_" + std::string(name) + "_s=" + std::to_string(cpu_between(from, to));
    result += " cut_" + std::string(name) + "_bytes=" + std::to_string(cut_bytes);
  }
  if (options.compare_exhaustive) {
    // The same plans with every refinement step searching the whole job (the algorithm before the
    // bounded look, scheduler/README.md "Cost at scale"): time and inter-node bytes side by side.
    const auto in = scheduler_inputs(cluster, options.ranks, traffic, compute);
    scheduler::Options exhaustive;
    exhaustive.max_oversubscribe = 2.0;
    exhaustive.comm_exhaustive_ranks = INT_MAX;
    for (const char* name : {"comm", "auto"}) {
      const auto from = read_meter();
      const auto placement = scheduler::place(scheduler::parse_policy(name), in.job, in.nodes, rank_hosts, exhaustive);
      const auto to = read_meter();
      std::printf(
          "exhaustive refinement, policy %-8s %.4f s CPU, %.4f s wall (%s moved %zu ranks), inter-node %llu bytes\n",
          name, cpu_between(from, to), seconds_between(from, to), placement.policy.c_str(), placement.moved.size(),
          static_cast<unsigned long long>(placement.cost.inter_node_bytes));
      result += " exhaustive_" + std::string(name) + "_s=" + std::to_string(cpu_between(from, to));
      result += " exhaustive_cut_" + std::string(name) + "_bytes=" + std::to_string(placement.cost.inter_node_bytes);
    }
  }
  std::printf("RESULT plan_only ranks=%d nodes=%d traffic=%s peak_rss_mib=%.1f%s\n", options.ranks, nodes,
              pattern_name(options.traffic), peak_rss_mib(), result.c_str());
  return status;
}

}  // namespace yadokari::bench::scale
