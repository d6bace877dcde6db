#include "runtime/frontend/spared_by_loss.hpp"

#include <algorithm>
#include <cstddef>

namespace yadokari::frontend {

bool launch_spared_by_loss(const std::vector<protocol::RegisterRank>& registrations,
                           const std::vector<std::string>& lost_hostnames) {
  // Until every rank has registered, a rank not heard of yet may be on the lost node.
  if (registrations.empty() || registrations.size() != static_cast<std::size_t>(registrations.front().world_size))
    return false;
  for (const auto& host : lost_hostnames) {
    if (host.empty()) return false;
    const bool held_a_rank = std::any_of(registrations.begin(), registrations.end(),
                                         [&host](const protocol::RegisterRank& rank) { return rank.hostname == host; });
    if (held_a_rank) return false;
  }
  return true;
}

}  // namespace yadokari::frontend
