#include "runtime/frontend/node_drain.hpp"

#include <cstdio>

#include "runtime/frontend/automatic_restart.hpp"
#include "runtime/frontend/frontend_error.hpp"
#include "runtime/frontend/platform.hpp"
#include "runtime/frontend/rank_moves.hpp"
#include "scheduler/placement.hpp"
#include "scheduler/placement_error.hpp"

namespace yadokari::frontend {
namespace {

constexpr std::chrono::milliseconds kLookInterval{1000};
// A move whose checkpoints do not commit is given up (job_launch.cpp, "rebalance given up"); the
// ranks are then still there, and this many such moves make the node stuck rather than retried.
constexpr int kMoveTries = 2;

std::vector<int> ranks_on(const std::vector<std::string>& rank_hosts, const std::string& hostname) {
  std::vector<int> ranks;
  for (std::size_t rank = 0; rank < rank_hosts.size(); ++rank)
    if (!hostname.empty() && rank_hosts[rank] == hostname) ranks.push_back(static_cast<int>(rank));
  return ranks;
}

// The moves that empty `leaving` (by hostname), in node ids; checked with plan_moves, so that a
// move that does not fit throws PlacementError now rather than after a checkpoint.
std::vector<scheduler::Move> moves_off_node(const std::vector<ClusterNode>& planning,
                                            const std::vector<std::string>& rank_hosts, const std::string& leaving,
                                            double max_oversubscribe) {
  std::vector<scheduler::Node> candidates;
  std::map<std::string, std::string> id_of;
  for (const auto& node : planning) {
    candidates.push_back(scheduler::Node{node.hostname, node.slots, node.alive, std::nullopt});
    id_of[node.hostname] = node.id;
  }
  std::vector<scheduler::Move> moves = scheduler::moves_off(candidates, rank_hosts, leaving);
  for (auto& move : moves) move.to = id_of[move.to];
  (void)plan_moves(static_cast<int>(rank_hosts.size()), planning, rank_hosts, moves, max_oversubscribe);
  return moves;
}

}  // namespace

void NodeDrains::watch(const Platform& platform, const control::Coordinator& coordinator, bool move_under_way,
                       const BeginMoves& begin_moves) {
  const auto now = std::chrono::steady_clock::now();
  if (now < next_look_) return;
  next_look_ = now + kLookInterval;
  std::vector<ClusterNode> nodes;
  try {
    nodes = platform.nodes_now(coordinator);
  } catch (const FrontendError&) {
    return;  // the cluster is being changed; the next look sees it
  }
  std::map<std::string, Draining> draining;
  for (const auto& node : nodes)
    if (node.alive && node.draining) draining[node.id] = Draining{node.hostname, node.drain_id};
  const auto registrations = coordinator.registrations();
  const std::vector<std::string> rank_hosts = hosts_of_ranks(registrations, job_.world_size);
  for (const auto& [node, now_draining] : draining) {
    const auto before = draining_.find(node);
    if (before != draining_.end() && before->second.drain_id == now_draining.drain_id) continue;
    stuck_.erase(node);  // a new drain of this node: tried afresh
    tries_.erase(node);
    if (ranks_on(rank_hosts, now_draining.hostname).empty())
      std::fprintf(stderr, "yadokari: node %s is draining; no rank of the job runs there\n", node.c_str());
  }
  for (const auto& before : draining_)
    if (!draining.count(before.first)) {  // drained no more
      stuck_.erase(before.first);
      tries_.erase(before.first);
    }
  draining_ = draining;
  // Moves are planned on the whole job, as it runs now: not during a restart or another move.
  if (move_under_way || static_cast<int>(registrations.size()) != job_.world_size) return;
  for (const auto& [node, draining_now] : draining_) {
    const std::string& hostname = draining_now.hostname;
    const std::vector<int> here = ranks_on(rank_hosts, hostname);
    if (here.empty() || stuck_.count(node)) continue;
    if (!job_.can_move) {
      stuck(node, here, "the job has no checkpoint directory (--ckpt-dir) to move them with");
      continue;
    }
    if (tries_[node] >= kMoveTries) {
      stuck(node, here, "moving them was given up " + std::to_string(kMoveTries) + " times");
      continue;
    }
    std::vector<scheduler::Move> moves;
    try {
      moves = moves_off_node(nodes_for_planning(platform, coordinator, {}, {}), rank_hosts, hostname,
                             job_.max_oversubscribe);
    } catch (const scheduler::PlacementError& e) {
      stuck(node, here, e.what());
      continue;
    } catch (const FrontendError& e) {
      stuck(node, here, e.what());
      continue;
    }
    const std::string text = scheduler::moves_text(moves);
    if (job_.live)
      std::fprintf(stderr,
                   "yadokari: node %s is draining: moving %s live: a checkpoint, then the ranks that stay swap their "
                   "MPI library in their processes and only these ranks restart\n",
                   node.c_str(), text.c_str());
    else
      std::fprintf(stderr,
                   "yadokari: node %s is draining: moving %s (%s), so the job is checkpointed and restarted with "
                   "only these ranks moved\n",
                   node.c_str(), text.c_str(), why_no_live_migration(job_.flavour).c_str());
    ++tries_[node];
    begin_moves(moves, "drain of " + node + ": " + text, job_.live);
    return;  // one node at a time: the next is planned on the placement this move makes
  }
}

void NodeDrains::stuck(const std::string& node, const std::vector<int>& ranks, const std::string& why) {
  stuck_[node] = why;
  std::fprintf(stderr, "yadokari: node %s is draining, but %s cannot move off it: %s; they stay there\n", node.c_str(),
               (std::string(ranks.size() > 1 ? "ranks " : "rank ") + scheduler::rank_list(ranks)).c_str(), why.c_str());
}

void NodeDrains::describe(protocol::StatusReport& report,
                          const std::vector<protocol::RegisterRank>& registrations) const {
  const std::vector<std::string> rank_hosts = hosts_of_ranks(registrations, job_.world_size);
  const bool whole = static_cast<int>(registrations.size()) == job_.world_size;
  for (auto& node : report.nodes) {
    for (const int rank : ranks_on(rank_hosts, node.hostname)) node.ranks.push_back(rank);
    const auto draining = draining_.find(node.node);
    if (draining == draining_.end()) continue;
    node.drain_id = draining->second.drain_id;
    if (const auto why = stuck_.find(node.node); why != stuck_.end())
      node.drain = "stuck: " + why->second;
    else
      node.drain = (node.ranks.empty() && whole) ? "empty" : "moving";
  }
}

}  // namespace yadokari::frontend
