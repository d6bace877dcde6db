#pragma once
// `yadokari sim drain NODE`: a node announced as leaving. The jobs running on the cluster move
// their ranks off it (runtime/frontend/node_drain.hpp); once none holds a rank there, the node is
// taken down as `sim kill` does, and the jobs go on without a restart
// (docs/flows/migrate.md, "Draining a node").
#include <string>

namespace yadokari::cli {

// Returns 0 once the node is down. CliError (exit 1) when a job cannot move its ranks off it or
// still holds some after `timeout_s`: the node then stays up and is not draining any more.
int sim_drain(const std::string& cluster, const std::string& node, double timeout_s);

}  // namespace yadokari::cli
