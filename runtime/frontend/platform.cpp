#include "runtime/frontend/platform.hpp"

#include "runtime/frontend/frontend_error.hpp"
#include "runtime/frontend/platform_slurm.hpp"

namespace yadokari::frontend {

std::unique_ptr<Platform> make_platform(const LaunchRequest& request) {
  if (request.sim) return make_sim_platform(request);
  if (!request.hosts.empty()) return make_hosts_platform(request);
  if (in_slurm_allocation()) return make_slurm_platform(request);
  return make_local_platform(request);
}

std::vector<launch::HostSlots> hosts_the_ranks_fill(const std::vector<launch::HostSlots>& hosts, int ranks) {
  std::vector<launch::HostSlots> filled;
  int slots = 0;
  for (const auto& host : hosts) {
    if (slots >= ranks) return filled;
    filled.push_back(host);
    slots += host.slots;
  }
  return hosts;
}

std::unique_ptr<control::Coordinator> Platform::start_coordinator(const control::CoordinatorConfig& config) const {
  return std::make_unique<control::Coordinator>(config);
}

std::vector<ClusterNode> Platform::joined_nodes(const control::Coordinator&) const { return {}; }

std::vector<std::string> Platform::launcher_args(bool) const { return {}; }

std::vector<std::string> Platform::launcher_prefix(const std::string&) const { return {}; }

}  // namespace yadokari::frontend
