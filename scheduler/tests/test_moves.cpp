#include "scheduler/moves.hpp"
#include "scheduler/tests/support.hpp"

namespace yadokari::scheduler::test {

TEST_CASE("a move puts the named ranks on the target and keeps every other rank where it is", "[moves]") {
  const Job job = uniform_job(4);
  const std::vector<Node> nodes{node("n1", 2), node("n2", 2), node("n3", 2)};
  const CurrentPlacement current{"n1", "n1", "n2", "n2"};
  const Placement p = place_moves(job, nodes, current, {{2, "n3"}, {3, "n3"}});
  CHECK(p.node_of_rank == std::vector<std::string>{"n1", "n1", "n3", "n3"});
  CHECK(p.moved == std::vector<int>{2, 3});
  CHECK(p.hosts == std::vector<HostSlots>{{"n1", 2}, {"n3", 2}});
  CHECK(rank_map_string(p) == "0,1,2,3");
  CHECK(p.policy == "moves");
  CHECK(p.explanation == "moved as asked: ranks 2,3 to n3; the other ranks stay");
  check_consistent(p, job, nodes, current, 2.0);
}

TEST_CASE("ranks moved onto a node that already holds ranks join them in the rank map", "[moves]") {
  const Job job = uniform_job(4);
  const std::vector<Node> nodes{node("n1", 2), node("n2", 2), node("n3", 2)};
  const CurrentPlacement current{"n1", "n2", "n3", "n3"};
  const Placement p = place_moves(job, nodes, current, {{3, "n1"}});
  CHECK(p.node_of_rank == std::vector<std::string>{"n1", "n2", "n3", "n1"});
  CHECK(p.hosts == std::vector<HostSlots>{{"n1", 2}, {"n2", 1}, {"n3", 1}});
  CHECK(rank_map_string(p) == "0,3,1,2");
  check_consistent(p, job, nodes, current, 2.0);
}

TEST_CASE("a move that cannot be done is refused with one line saying why", "[moves]") {
  const Job job = uniform_job(4);
  const std::vector<Node> nodes{node("n1", 2), node("n2", 2), node("n3", 1), node("n4", 2, false)};
  const CurrentPlacement current{"n1", "n1", "n2", "n2"};
  const auto refused = [&](const std::vector<Move>& moves, double oversubscribe = 1.0) {
    Options options;
    options.max_oversubscribe = oversubscribe;
    try {
      (void)place_moves(job, nodes, current, moves, options);
    } catch (const PlacementError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refused({}) == "no rank to move");
  CHECK(refused({{4, "n3"}}) == "rank 4 does not exist (the job has ranks 0-3)");
  CHECK(refused({{-1, "n3"}}) == "rank -1 does not exist (the job has ranks 0-3)");
  CHECK(refused({{2, "n3"}, {2, "n1"}}) == "rank 2 is named twice");
  CHECK(refused({{2, "n9"}}) == "no node 'n9' in the cluster");
  CHECK(refused({{2, "n4"}}) == "node 'n4' is not alive");
  CHECK(refused({{0, "n1"}}) == "rank 0 already runs on n1");
  CHECK(refused({{2, "n3"}, {3, "n3"}}) == "node 'n3' would hold 2 ranks, more than its 1 slots allow (at most 1)");
  CHECK(refused({{2, "n3"}, {3, "n3"}}, 2.0) == "accepted");
}

TEST_CASE("a move is not a re-placement: a rank left on a lost node refuses it", "[moves]") {
  const Job job = uniform_job(4);
  const std::vector<Node> nodes{node("n1", 2), node("n2", 2, false), node("n3", 2)};
  const CurrentPlacement current{"n1", "n1", "n2", "n2"};
  REQUIRE_THROWS_WITH(place_moves(job, nodes, current, {{2, "n3"}}),
                      "rank 3 is not on a live node: the job needs a re-placement (rebalance), not a move");
  CHECK(place_moves(job, nodes, current, {{2, "n3"}, {3, "n3"}}).moved == std::vector<int>{2, 3});
}

TEST_CASE("the moves are described per target node", "[moves]") {
  CHECK(moves_text({{2, "n4"}, {3, "n4"}}) == "ranks 2,3 to n4");
  CHECK(moves_text({{5, "n2"}, {6, "n3"}, {7, "n2"}}) == "ranks 5,7 to n2, rank 6 to n3");
  CHECK(moves_text({{1, "n2"}, {2, "n2"}, {3, "n2"}}) == "ranks 1-3 to n2");
}

TEST_CASE("a leaving node's ranks spread over the free slots of the other live nodes", "[moves]") {
  const std::vector<Node> nodes{node("n1", 1), node("n2", 2), node("n3", 2), node("n4", 1), node("n5", 4, false)};
  const CurrentPlacement current{"n1", "n2", "n2", "n3"};
  // n3 and n4 have one free slot each (n1 none, n5 is not alive): one rank each, n3 first.
  const std::vector<Move> moves = moves_off(nodes, current, "n2");
  REQUIRE(moves.size() == 2);
  CHECK((moves[0].rank == 1 && moves[0].to == "n3"));
  CHECK((moves[1].rank == 2 && moves[1].to == "n4"));
  CHECK(moves_text(moves) == "rank 1 to n3, rank 2 to n4");
  // Placed as moves, every other rank stays.
  const Placement p = place_moves(uniform_job(4), nodes, current, moves);
  CHECK(p.node_of_rank == std::vector<std::string>{"n1", "n3", "n4", "n3"});
}

TEST_CASE("a leaving node past the free slots: the least loaded node, then place_moves judges", "[moves]") {
  const std::vector<Node> nodes{node("n1", 2), node("n2", 2), node("n3", 1)};
  const CurrentPlacement current{"n1", "n2", "n2", "n3"};
  // n1 (2 slots, 1 rank) has the only free slot; then n1 and n3 are both full, and n1 is listed first.
  const std::vector<Move> moves = moves_off(nodes, current, "n2");
  REQUIRE(moves.size() == 2);
  CHECK(moves[0].to == "n1");
  CHECK(moves[1].to == "n1");
  Options options;
  options.max_oversubscribe = 1.0;
  CHECK_THROWS_WITH(place_moves(uniform_job(4), nodes, current, moves, options),
                    "node 'n1' would hold 3 ranks, more than its 2 slots allow (at most 2)");
  options.max_oversubscribe = 2.0;
  CHECK(place_moves(uniform_job(4), nodes, current, moves, options).node_of_rank ==
        std::vector<std::string>{"n1", "n1", "n1", "n3"});
}

TEST_CASE("a leaving node without ranks needs no move, and one with ranks needs another live node", "[moves]") {
  const std::vector<Node> nodes{node("n1", 2), node("n2", 2, false)};
  CHECK(moves_off(nodes, {"n1", "n1"}, "n3").empty());
  CHECK_THROWS_WITH(moves_off(nodes, {"n1", "n1"}, "n1"), "no other live node to move ranks to");
}

}  // namespace yadokari::scheduler::test
