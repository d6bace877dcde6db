#include "runtime/frontend/node_local_restart.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "runtime/frontend/frontend_error.hpp"
#include "runtime/frontend/node_local_images.hpp"
#include "runtime/frontend/platform.hpp"
#include "runtime/frontend/restart_plan.hpp"
#include "common/parameters.hpp"

namespace yadokari::frontend {

Incarnation restore_node_local(const RestartContext& context, control::Coordinator& coordinator) {
  NodeLocalEpoch chosen;
  RestartPlan plan;
  std::vector<ClusterNode> nodes;
  try {
    chosen = choose_node_local_epoch(context.ckpt_dir, context.world_size, coordinator, {});
    nodes = context.platform->nodes_now(coordinator);
    // Where the ranks ran before is not known here: the policy places them afresh.
    plan = plan_restart(context.settings.policy, context.world_size, nodes,
                        std::vector<std::string>(static_cast<std::size_t>(context.world_size)),
                        context.settings.max_oversubscribe);
    const std::vector<std::string> target_node = node_id_of_rank(plan, nodes);
    stage_node_local_images(chosen, target_node, coordinator);
  } catch (const FrontendError& e) {
    throw FrontendError(ErrorKind::failure, std::string("cannot restart: ") + e.what());
  } catch (const scheduler::PlacementError& e) {
    throw FrontendError(ErrorKind::failure, std::string("cannot restart: ") + e.what());
  }
  for (const auto& note : chosen.notes) std::fprintf(stderr, "yadokari: %s\n", note.c_str());
  std::string hosts;
  for (const auto& host : plan.hosts)
    hosts += (hosts.empty() ? "" : ",") + host.host + ":" + std::to_string(host.slots);
  std::fprintf(stderr, "yadokari: restarting from epoch %llu (node-local images) on %s\n",
               static_cast<unsigned long long>(chosen.epoch), hosts.c_str());
  Incarnation first;
  first.hosts = plan.hosts;
  first.rank_env = {
      {yadokari::parameters::kRestore, (context.node_dir / context.job_id / std::to_string(chosen.epoch)).string()},
      {yadokari::parameters::kRestoreEpoch, std::to_string(chosen.epoch)},
      {yadokari::parameters::kRankMap, plan.rank_map}};
  return first;
}

}  // namespace yadokari::frontend
