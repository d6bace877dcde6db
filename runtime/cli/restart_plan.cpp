#include "cli/restart_plan.hpp"

namespace yadokari::cli {

RestartPlan plan_restart(scheduler::Policy policy, int world_size, const std::vector<ClusterNode>& nodes,
                         const std::vector<std::string>& rank_hosts, double max_oversubscribe,
                         const scheduler::TrafficMatrix& traffic) {
  scheduler::Job job;
  job.world_size = world_size;
  job.traffic = traffic;
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

}  // namespace yadokari::cli
