#pragma once
// A node lost while the job runs costs a restart only if a rank of the current launch ran there.
// A node that holds none (one that joined and was never used, or one the job was moved off by
// `yadokari migrate`) goes without stopping the job: a restart would throw away every step since
// the last epoch for nothing (docs/flows/node-loss.md, "A node without ranks"). Pure: no I/O.
#include <string>
#include <vector>

#include "protocol/rank_messages.hpp"

namespace yadokari::frontend {

// True when the launch survives the loss of the nodes whose hostnames are `lost_hostnames`: every
// rank of the launch has registered (so where each runs is known) and none registered from one of
// them. An unknown hostname ("" : the node's agent never said hello) counts as holding ranks.
bool launch_spared_by_loss(const std::vector<protocol::RegisterRank>& registrations,
                           const std::vector<std::string>& lost_hostnames);

}  // namespace yadokari::frontend
