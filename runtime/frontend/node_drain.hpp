#pragma once
// Nodes announced as leaving (`yadokari sim drain`; docs/flows/migrate.md, "Draining a node"): the
// job moves its ranks off each one, rank by rank onto the free slots of the other live nodes, the
// way `yadokari migrate` moves ranks (a checkpoint and a restart with only those ranks moved; with
// --live-moves the ranks that stay keep their processes, "Live moves" there), and
// its status says when a node holds none of its ranks any more, so that the node may go without
// a restart (docs/flows/node-loss.md, "A node without ranks").
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "protocol/front_end_messages.hpp"
#include "runtime/control/coordinator.hpp"
#include "runtime/launch/mpi_flavour.hpp"
#include "scheduler/moves.hpp"

namespace yadokari::frontend {

class Platform;

class NodeDrains {
 public:
  struct Job {
    int world_size = 0;
    bool can_move = false;  // it checkpoints (--ckpt-dir): its ranks can be moved
    double max_oversubscribe = 1.0;
    launch::MpiFlavour flavour = launch::MpiFlavour::openmpi;
    bool live = false;  // --live-moves, and the job can move live: the ranks that stay keep their processes
  };
  // Starts a move: the ranks to move, the restart's cause ("drain of n3: ranks 2,3 to n4"), live.
  using BeginMoves = std::function<void(const std::vector<scheduler::Move>&, const std::string&, bool)>;

  explicit NodeDrains(Job job) : job_(job) {}

  // Looks at the platform's nodes at most once a second. Moves the ranks off one draining node
  // when the whole job runs (every rank registered) and no move or rebalance is under way; a
  // node whose ranks cannot move is reported as stuck, once, with the reason.
  void watch(const Platform& platform, const control::Coordinator& coordinator, bool move_under_way,
             const BeginMoves& begin_moves);

  // Each node's ranks now (NodeStatus::ranks) and the draining ones' state (NodeStatus::drain).
  void describe(protocol::StatusReport& report, const std::vector<protocol::RegisterRank>& registrations) const;

 private:
  void stuck(const std::string& node, const std::vector<int>& ranks, const std::string& why);

  Job job_;
  struct Draining {
    std::string hostname;
    std::uint64_t drain_id = 0;  // which drain (sim::Node::drain_id)
  };
  std::map<std::string, Draining> draining_;  // node id -> as last seen
  // Per node id, for its current drain only (forgotten when the drain ends or another begins).
  std::map<std::string, std::string> stuck_;  // why its ranks cannot move
  std::map<std::string, int> tries_;          // moves begun off it
  std::chrono::steady_clock::time_point next_look_{};
};

}  // namespace yadokari::frontend
