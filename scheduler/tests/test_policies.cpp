// Each policy on its own.
#include "scheduler/tests/support.hpp"

using namespace yadokari::scheduler;
using namespace yadokari::scheduler::test;

TEST_CASE("node: each lost node's ranks move together to the node with most free slots", "[scheduler][node]") {
  const Job job = uniform_job(8);
  const std::vector<Node> nodes = {node("a", 4), node("b", 4), node("c", 4, false), node("d", 4, false)};
  // a has 2 free, b has 3 free; c (ranks 4-5) goes first (name order) to b, then d (6-7) to a
  // (a 2 free vs b 1 free).
  const CurrentPlacement current = {"a", "a", "b", "c", "c", "d", "d", "c"};
  const Placement p = place(Policy::node, job, nodes, current);
  CHECK(p.node_of_rank == std::vector<std::string>{"a", "a", "b", "b", "b", "a", "a", "b"});
  CHECK(p.moved == std::vector<int>{3, 4, 5, 6, 7});
  CHECK(p.explanation.find("lost node c (3,4,7) moved together to b") != std::string::npos);
  check_consistent(p, job, nodes, current, 2.0);
}

TEST_CASE("node: ties go to the lowest name, and capacity splits a group that fits nowhere", "[scheduler][node]") {
  const Job job = uniform_job(6);
  const std::vector<Node> nodes = {node("b", 2), node("a", 2), node("c", 2, false)};
  const CurrentPlacement current = {"a", "b", "c", "c", "c", "c"};
  Options options;
  options.max_oversubscribe = 2.0;  // capacity 4 each: 4 ranks do not fit on a (1 there already)
  const Placement p = place(Policy::node, job, nodes, current, options);
  CHECK(counts(p) == std::map<std::string, int>{{"a", 3}, {"b", 3}});
  CHECK(p.explanation.find("were split") != std::string::npos);
  check_consistent(p, job, nodes, current, 2.0);
  options.max_oversubscribe = 2.5;  // capacity 5: all four go to a (tie with b, lower name)
  const Placement q = place(Policy::node, job, nodes, current, options);
  CHECK(counts(q) == std::map<std::string, int>{{"a", 5}, {"b", 1}});
}

TEST_CASE("balanced: displaced ranks go one by one, survivors never move", "[scheduler][balanced]") {
  const Job job = uniform_job(9);
  const std::vector<Node> nodes = {node("a", 4), node("b", 2), node("c", 4, false), node("d", 3)};
  const CurrentPlacement current = {"a", "b", "c", "c", "c", "c", "d", "a", "b"};
  const Placement p = place(Policy::balanced, job, nodes, current);
  // free before: a 2, b 0, d 2. 2 -> a, 3 -> d, 4 -> a (a 1 vs d 1: name), 5 -> d.
  CHECK(p.node_of_rank == std::vector<std::string>{"a", "b", "a", "d", "a", "d", "d", "a", "b"});
  CHECK(p.moved == std::vector<int>{2, 3, 4, 5});
  check_consistent(p, job, nodes, current, 2.0);
}

TEST_CASE("balanced: nothing lost, nothing moves", "[scheduler][balanced]") {
  const Job job = uniform_job(4);
  const std::vector<Node> nodes = {node("a", 2), node("b", 2)};
  const CurrentPlacement current = {"a", "a", "b", "b"};
  for (const Policy policy : {Policy::node, Policy::balanced, Policy::comm, Policy::speed, Policy::auto_}) {
    INFO(policy_name(policy));
    const Placement p = place(policy, job, nodes, current);
    CHECK(p.moved.empty());
    CHECK(p.node_of_rank == std::vector<std::string>(current.begin(), current.end()));
  }
}

TEST_CASE("every policy respects max_oversubscribe", "[scheduler][capacity]") {
  Job job = uniform_job(10, 1.0);
  all_to_all(job, 1000000, 100);
  const std::vector<Node> nodes = {node("a", 4), node("b", 2), node("c", 2), node("d", 4, false)};
  const CurrentPlacement current = {"a", "a", "a", "a", "b", "b", "c", "d", "d", "d"};
  for (const double factor : {1.5, 2.0, 3.0}) {
    Options options;
    options.max_oversubscribe = factor;
    for (const Policy policy : {Policy::node, Policy::balanced, Policy::comm, Policy::speed, Policy::auto_}) {
      INFO(policy_name(policy) << " at " << factor);
      const Placement p = place(policy, job, nodes, current, options);
      check_consistent(p, job, nodes, current, factor);
    }
  }
}

TEST_CASE("a node over its capacity gives up its highest ranks", "[scheduler][capacity]") {
  const Job job = uniform_job(5);
  const std::vector<Node> nodes = {node("a", 2), node("b", 3)};
  const CurrentPlacement current = {"a", "a", "a", "a", "b"};
  Options options;
  options.max_oversubscribe = 1;
  const Placement p = place(Policy::balanced, job, nodes, current, options);
  CHECK(p.node_of_rank == std::vector<std::string>{"a", "a", "b", "b", "b"});
  CHECK(p.moved == std::vector<int>{2, 3});
  CHECK(p.explanation.find("over capacity on a (2,3)") != std::string::npos);
}

TEST_CASE("comm: displaced ranks join their heaviest partners", "[scheduler][comm]") {
  // Node c (ranks 1, 3) is lost; a and b have one free slot each. 1 talks with 2 (on b), 3 with
  // 0 (on a). balanced sends 1 to a and 3 to b, splitting both pairs.
  Job job = uniform_job(4, 1.0);
  set_traffic(job, 1, 2, 400000000);
  set_traffic(job, 2, 1, 400000000);
  set_traffic(job, 0, 3, 300000000);
  const std::vector<Node> nodes = {node("a", 2), node("b", 2), node("c", 2, false)};
  const CurrentPlacement current = {"a", "c", "b", "c"};
  const Placement c = place(Policy::comm, job, nodes, current);
  CHECK(c.node_of_rank == std::vector<std::string>{"a", "b", "b", "a"});
  CHECK(c.moved == std::vector<int>{1, 3});
  CHECK(c.cost.inter_node_bytes == 0);
  const Placement b = place(Policy::balanced, job, nodes, current);
  CHECK(b.node_of_rank == std::vector<std::string>{"a", "a", "b", "b"});
  CHECK(b.cost.inter_node_bytes == 1100000000u);
  check_consistent(c, job, nodes, current, 2.0);
  // auto prefers comm: same compute, less communication.
  const Placement a = place(Policy::auto_, job, nodes, current);
  CHECK(a.policy == "auto(comm)");
  CHECK(a.node_of_rank == c.node_of_rank);
}

TEST_CASE("comm: co-locates a whole displaced group with its partners when they fit", "[scheduler][comm]") {
  // A halo ring of 8 ranks over nodes of 4; node b (4-7) is lost; c and d have 2 free each.
  // The chain 4-5-6-7 stays split once (2+2) rather than alternating.
  Job job = uniform_job(8, 1.0);
  for (int r = 0; r < 8; ++r) {
    set_traffic(job, r, (r + 1) % 8, 100000000);
    set_traffic(job, (r + 1) % 8, r, 100000000);
  }
  const std::vector<Node> nodes = {node("a", 4), node("b", 4, false), node("c", 4), node("d", 4)};
  const CurrentPlacement current = {"a", "a", "a", "a", "b", "b", "b", "b"};
  const Placement c = place(Policy::comm, job, nodes, current);
  CHECK(c.node_of_rank[4] == c.node_of_rank[5]);
  CHECK(c.node_of_rank[6] == c.node_of_rank[7]);
  CHECK(c.moved == std::vector<int>{4, 5, 6, 7});
  CHECK(c.cost.inter_node_bytes <= place(Policy::balanced, job, nodes, current).cost.inter_node_bytes);
  check_consistent(c, job, nodes, current, 2.0);
}

TEST_CASE("comm: the greedy fills free slots before sharing cores", "[scheduler][comm]") {
  // 2 talks only to 0 (on full node a); b has room, so 2 goes to b instead of oversubscribing a.
  Job job = uniform_job(3, 1.0);
  set_traffic(job, 2, 0, 1000000000);
  const std::vector<Node> nodes = {node("a", 2), node("b", 2), node("c", 1, false)};
  const CurrentPlacement current = {"a", "a", "c"};
  Options options;
  options.comm_max_extra_moves = 0;
  const Placement p = place(Policy::comm, job, nodes, current, options);
  CHECK(p.node_of_rank == std::vector<std::string>{"a", "a", "b"});
  CHECK(p.moved == std::vector<int>{2});
}

TEST_CASE("comm: moves a non-displaced rank only when it cuts traffic enough", "[scheduler][comm]") {
  // Same as above, but 1 is idle, so swapping 1 out of a for 2 puts 2 with its partner 0.
  Job job = uniform_job(3, 1.0);
  set_traffic(job, 2, 0, 1000000000);
  const std::vector<Node> nodes = {node("a", 2), node("b", 2), node("c", 1, false)};
  const CurrentPlacement current = {"a", "a", "c"};
  const Placement p = place(Policy::comm, job, nodes, current);  // default: up to 2 extra moves
  // Moving 0 to b (free slot) and swapping 1 with 2 save the same; single moves come first.
  CHECK(p.node_of_rank == std::vector<std::string>{"b", "a", "b"});
  CHECK(p.moved == std::vector<int>{0, 2});
  CHECK(p.cost.inter_node_bytes == 0);
  CHECK(p.explanation.find("also moved 0") != std::string::npos);

  // A tiny saving (below comm_min_gain of the predicted epoch time) is not worth a move.
  set_traffic(job, 1, 0, 999000000);  // the swap would now save only 1 MB of 1 GB
  const Placement q = place(Policy::comm, job, nodes, current);
  CHECK(q.node_of_rank == std::vector<std::string>{"a", "a", "b"});
  CHECK(q.moved == std::vector<int>{2});
}

TEST_CASE("comm: without traffic it behaves like balanced", "[scheduler][comm]") {
  const Job job = uniform_job(9);
  const std::vector<Node> nodes = {node("a", 4), node("b", 2), node("c", 4, false), node("d", 3)};
  const CurrentPlacement current = {"a", "b", "c", "c", "c", "c", "d", "a", "b"};
  CHECK(place(Policy::comm, job, nodes, current).node_of_rank ==
        place(Policy::balanced, job, nodes, current).node_of_rank);
}

TEST_CASE("speed: a slow node gets fewer ranks", "[scheduler][speed]") {
  // Seed 004's setting: four 2-core nodes, one runs at half speed (measured), 8 ranks; nothing lost.
  Job job = uniform_job(8, 10.0);
  job.compute_seconds[6] = job.compute_seconds[7] = 20.0;  // measured on the slow node
  const std::vector<Node> nodes = {node("n1", 2, true, 1.0), node("n2", 2, true, 1.0), node("n3", 2, true, 1.0),
                                   node("slow", 2, true, 0.5)};
  const CurrentPlacement current = {"n1", "n1", "n2", "n2", "n3", "n3", "slow", "slow"};
  const Placement p = place(Policy::speed, job, nodes, current);
  // Two ranks on a fast node cost 10 s, on the slow one 20 s; a third rank on a fast node costs 15 s.
  CHECK(counts(p) == std::map<std::string, int>{{"n1", 3}, {"n2", 3}, {"n3", 2}});
  CHECK(p.moved == std::vector<int>{6, 7});
  CHECK(p.cost.compute_s == Approx(15.0));
  CHECK(place(Policy::balanced, job, nodes, current).cost.compute_s == Approx(20.0));
  check_consistent(p, job, nodes, current, 2.0);
}

TEST_CASE("speed: speeds are inferred from measured compute times", "[scheduler][speed]") {
  // Ranks on `slow` took 3× as long as the others: under equal work the node is 3× slower.
  Job job = uniform_job(6);
  job.compute_seconds = {1.0, 1.0, 1.0, 1.0, 3.0, 3.0};
  const std::vector<Node> nodes = {node("a", 2), node("b", 2), node("slow", 2)};
  const CurrentPlacement current = {"a", "a", "b", "b", "slow", "slow"};
  const Placement p = place(Policy::speed, job, nodes, current);
  CHECK(p.explanation.find("slow 0.556 (inferred)") != std::string::npos);
  CHECK(counts(p) == std::map<std::string, int>{{"a", 3}, {"b", 3}});
  CHECK(p.moved == std::vector<int>{4, 5});
  const Placement b = place(Policy::balanced, job, nodes, current);
  CHECK(p.cost.compute_s == Approx(1.5));
  CHECK(b.cost.compute_s == Approx(3.0));
  check_consistent(p, job, nodes, current, 2.0);
}

TEST_CASE("speed: under-subscribed jobs take the fastest cores, proportional once full", "[scheduler][speed]") {
  const Job job = uniform_job(4, 1.0);
  const std::vector<Node> nodes = {node("fast", 4, true, 2.0), node("slow", 4, true, 1.0)};
  CHECK(counts(place(Policy::speed, job, nodes, {})) == std::map<std::string, int>{{"fast", 4}});
  // 12 ranks on 8 cores: shares follow speed × slots (fast 8 = 2× of 4 per core, slow 4).
  const Job big = uniform_job(12, 1.0);
  CHECK(counts(place(Policy::speed, big, nodes, {})) == std::map<std::string, int>{{"fast", 8}, {"slow", 4}});
}

TEST_CASE("speed: equal speeds and no measurements fill nodes like balanced", "[scheduler][speed]") {
  const Job job = uniform_job(7);
  const std::vector<Node> nodes = {node("a", 3), node("b", 4), node("c", 4, false)};
  const CurrentPlacement current = {"a", "a", "b", "b", "c", "c", "c"};
  const Placement p = place(Policy::speed, job, nodes, current);
  CHECK(counts(p) == std::map<std::string, int>{{"a", 3}, {"b", 4}});
  CHECK(p.explanation.find("no speed measured") != std::string::npos);
}
