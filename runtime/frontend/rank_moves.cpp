#include "runtime/frontend/rank_moves.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace yadokari::frontend {

std::vector<scheduler::Move> moves_to(const std::vector<int>& ranks, const std::string& to) {
  std::vector<scheduler::Move> moves;
  for (const int rank : ranks) moves.push_back({rank, to});
  return moves;
}

RestartPlan plan_moves(int world_size, const std::vector<ClusterNode>& nodes,
                       const std::vector<std::string>& rank_hosts, const std::vector<scheduler::Move>& moves,
                       double max_oversubscribe) {
  // The scheduler names nodes by hostname (what the launcher is given); users by node id.
  std::map<std::string, std::string> hostname_of;
  std::map<std::string, std::string> id_of;
  std::vector<scheduler::Node> candidates;
  for (const auto& node : nodes) {
    hostname_of[node.id] = node.hostname;
    id_of[node.hostname] = node.id;
    candidates.push_back(scheduler::Node{node.hostname, node.slots, node.alive, std::nullopt});
  }
  std::vector<scheduler::Move> by_hostname;
  for (const auto& move : moves) {
    const auto known = hostname_of.find(move.to);
    if (known == hostname_of.end()) throw scheduler::PlacementError("no node '" + move.to + "' in the cluster");
    by_hostname.push_back({move.rank, known->second});
  }
  scheduler::Job job;
  job.world_size = world_size;
  scheduler::Options options;
  options.max_oversubscribe = max_oversubscribe;
  RestartPlan plan;
  try {
    plan.placement = scheduler::place_moves(job, candidates, rank_hosts, by_hostname, options);
  } catch (const scheduler::PlacementError& e) {
    // Its message names hostnames ("node 'yksim-n4' ..."): say the node ids the user typed. The
    // longest hostnames first, so that "yksim-n1" is not found inside "yksim-n10".
    std::vector<std::pair<std::string, std::string>> names(id_of.begin(), id_of.end());
    std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    std::string text = e.what();
    for (const auto& [hostname, id] : names)
      for (auto at = text.find(hostname); at != std::string::npos; at = text.find(hostname, at + id.size()))
        text.replace(at, hostname.size(), id);
    throw scheduler::PlacementError(text);
  }
  plan.placement.explanation = "moved as asked: " + scheduler::moves_text(moves) + "; the other ranks stay";
  for (const auto& host : plan.placement.hosts) plan.hosts.push_back(launch::HostSlots{host.host, host.slots});
  plan.rank_map = scheduler::rank_map_string(plan.placement);
  return plan;
}

std::string why_no_live_migration(launch::MpiFlavour) {
  // A live move (live_move.hpp) leaves the kept processes unable to checkpoint again (docs/flows/
  // migrate.md, "Not built yet"), so it is only done when asked for.
  return "the ranks that stay keep their processes only in a live move (`yadokari migrate --live`, or a job run with "
         "`--live-moves`)";
}

}  // namespace yadokari::frontend
