// Policy names, input validation, error messages, rank map and host list, determinism.
#include "scheduler/tests/support.hpp"

using namespace yadokari::scheduler;
using namespace yadokari::scheduler::test;

TEST_CASE("policy names parse and print", "[scheduler][policy]") {
  for (const Policy p : {Policy::node, Policy::balanced, Policy::comm, Policy::speed, Policy::auto_})
    CHECK(parse_policy(policy_name(p)) == p);
  CHECK(policy_name(Policy::auto_) == "auto");
  CHECK_THROWS_AS(parse_policy("Balanced"), PlacementError);
  CHECK_THROWS_WITH(
      parse_policy("fastest", "YADOKARI_POLICY"),
      "unknown placement policy 'fastest' in YADOKARI_POLICY (choose node, balanced, comm, speed or auto)");
  CHECK_THROWS_WITH(parse_policy(""),
                    "unknown placement policy '' in --policy (choose node, balanced, comm, speed or auto)");
}

TEST_CASE("too few surviving slots is a one-line error", "[scheduler][errors]") {
  const Job job = uniform_job(6);
  const std::vector<Node> nodes = {node("a", 1), node("b", 2), node("c", 4, false)};
  const CurrentPlacement current = {"a", "b", "b", "c", "c", "c"};
  Options options;
  options.max_oversubscribe = 1.5;
  for (const Policy p : {Policy::node, Policy::balanced, Policy::comm, Policy::speed, Policy::auto_})
    CHECK_THROWS_WITH(place(p, job, nodes, current, options),
                      "the 2 surviving nodes have 3 slots for 6 ranks (allowed oversubscription 1.5x gives 4)");
  options.max_oversubscribe = 2;
  CHECK_NOTHROW(place(Policy::balanced, job, nodes, current, options));

  const std::vector<Node> one = {node("a", 2), node("b", 4, false)};
  options.max_oversubscribe = 1;
  CHECK_THROWS_WITH(place(Policy::node, job, one, current, options),
                    "the surviving node has 2 slots for 6 ranks (allowed oversubscription 1x gives 2)");
  const std::vector<Node> none = {node("a", 2, false)};
  CHECK_THROWS_WITH(place(Policy::node, job, none, current), "no node is alive to place 6 ranks on");
}

TEST_CASE("inconsistent inputs are refused clearly", "[scheduler][errors]") {
  const std::vector<Node> nodes = {node("a", 2), node("b", 2)};
  CHECK_THROWS_WITH(place(Policy::balanced, uniform_job(0), nodes, {}), "the job has no ranks to place (world size 0)");
  Job job = uniform_job(2);
  CHECK_THROWS_WITH(place(Policy::balanced, job, nodes, {"a"}), "the current placement lists 1 ranks for a job of 2");
  job.compute_seconds = {1.0};
  CHECK_THROWS_WITH(place(Policy::balanced, job, nodes, {}), "compute times are given for 1 ranks of a job of 2");
  job.compute_seconds = {1.0, -2.0};
  CHECK_THROWS_WITH(place(Policy::balanced, job, nodes, {}),
                    "rank 1's compute time is -2 s; it must be a finite number of at least 0");
  job.compute_seconds.clear();
  job.traffic.rows = {{}, {}, {}};
  CHECK_THROWS_WITH(place(Policy::comm, job, nodes, {}), "the traffic matrix has 3 rows; a job of 2 ranks needs 2");
  job.traffic.rows = {{{1, 10, 1}}, {{2, 10, 1}}};
  CHECK_THROWS_WITH(place(Policy::comm, job, nodes, {}),
                    "rank 1's traffic names rank 2, which a job of 2 ranks does not have");
  job.traffic.rows.clear();
  CHECK_THROWS_WITH(place(Policy::balanced, job, {node("a", 2), node("a", 1)}, {}),
                    "node 'a' appears twice in the node list");
  CHECK_THROWS_WITH(place(Policy::balanced, job, {node("", 2)}, {}), "a node has an empty name");
  CHECK_THROWS_WITH(place(Policy::speed, job, {node("a", 2, true, 0.0)}, {}),
                    "node 'a' has speed 0; a speed must be greater than 0");
  CHECK_THROWS_WITH(place(Policy::balanced, job, {}, {}), "no nodes were given to place 2 ranks on");
  Options options;
  options.max_oversubscribe = 0.5;
  CHECK_THROWS_WITH(place(Policy::balanced, job, nodes, {}, options),
                    "the allowed oversubscription must be at least 1, not 0.5");
}

TEST_CASE("the rank map and the host list agree, in hostfile order", "[scheduler][rankmap]") {
  Job job = uniform_job(6, 1.0);
  set_traffic(job, 0, 5, 1000);
  const std::vector<Node> nodes = {node("n1", 2), node("n2", 2, false), node("n3", 2), node("n4", 2)};
  const CurrentPlacement current = {"n1", "n1", "n2", "n2", "n3", "n3"};
  for (const Policy p : {Policy::node, Policy::balanced, Policy::comm, Policy::speed, Policy::auto_}) {
    INFO(policy_name(p));
    const Placement placement = place(p, job, nodes, current);
    check_consistent(placement, job, nodes, current, Options{}.max_oversubscribe);
    CHECK(placement.moved == std::vector<int>{2, 3});
  }
  // balanced: 2 -> n4 (2 free), 3 -> n4 (n4 now 1 free, n1/n3 0); hosts ordered by lowest rank hosted.
  const Placement b = place(Policy::balanced, job, nodes, current);
  CHECK(b.node_of_rank == std::vector<std::string>{"n1", "n1", "n4", "n4", "n3", "n3"});
  CHECK(b.hosts == std::vector<HostSlots>{{"n1", 2}, {"n4", 2}, {"n3", 2}});
  CHECK(b.rank_map == std::vector<int>{0, 1, 2, 3, 4, 5});
  CHECK(rank_map_string(b) == "0,1,2,3,4,5");
}

TEST_CASE("a scattered placement gives a permuting rank map", "[scheduler][rankmap]") {
  const Job job = uniform_job(4);
  const std::vector<Node> nodes = {node("a", 2), node("b", 2)};
  const CurrentPlacement current = {"b", "a", "b", "a"};
  const Placement p = place(Policy::balanced, job, nodes, current);
  CHECK(p.hosts == std::vector<HostSlots>{{"b", 2}, {"a", 2}});
  CHECK(rank_map_string(p) == "0,2,1,3");
  CHECK(p.moved.empty());
  check_consistent(p, job, nodes, current, 2.0);
}

TEST_CASE("placements are deterministic and independent of the node list order", "[scheduler][determinism]") {
  Job job = uniform_job(12, 2.0);
  for (int r = 0; r < 12; ++r) set_traffic(job, r, (r + 1) % 12, 1000000u * static_cast<unsigned>(r % 3 + 1), 10);
  std::vector<Node> nodes = {node("d", 4), node("b", 3, false), node("a", 4), node("c", 2), node("e", 3)};
  const CurrentPlacement current = {"a", "a", "a", "b", "b", "b", "c", "c", "d", "d", "e", "e"};
  for (const Policy p : {Policy::node, Policy::balanced, Policy::comm, Policy::speed, Policy::auto_}) {
    INFO(policy_name(p));
    const Placement first = place(p, job, nodes, current);
    const Placement again = place(p, job, nodes, current);
    CHECK(first.node_of_rank == again.node_of_rank);
    CHECK(first.explanation == again.explanation);
    std::vector<Node> reversed(nodes.rbegin(), nodes.rend());
    const Placement other = place(p, job, reversed, current);
    CHECK(first.node_of_rank == other.node_of_rank);
    CHECK(first.hosts == other.hosts);
    CHECK(first.rank_map == other.rank_map);
    check_consistent(first, job, nodes, current, 2.0);
  }
}

TEST_CASE("a first start (nothing placed) fills live nodes", "[scheduler][start]") {
  const Job job = uniform_job(5);
  const std::vector<Node> nodes = {node("a", 2), node("b", 3), node("x", 8, false)};
  for (const Policy p : {Policy::node, Policy::balanced, Policy::comm, Policy::speed, Policy::auto_}) {
    INFO(policy_name(p));
    const Placement placement = place(p, job, nodes, {});
    check_consistent(placement, job, nodes, {}, 2.0);
    CHECK(placement.moved.empty());
    CHECK(counts(placement) == std::map<std::string, int>{{"a", 2}, {"b", 3}});
  }
}

TEST_CASE("ranks on nodes missing from the list count as displaced", "[scheduler][start]") {
  const Job job = uniform_job(3);
  const std::vector<Node> nodes = {node("a", 2), node("b", 2)};
  const CurrentPlacement current = {"a", "gone", "gone"};
  const Placement p = place(Policy::balanced, job, nodes, current);
  CHECK(p.node_of_rank == std::vector<std::string>{"a", "b", "a"});  // 1 -> b (2 free), 2 -> a (tie: name)
  CHECK(p.moved == std::vector<int>{1, 2});
}

TEST_CASE("predict_cost prices a given placement", "[scheduler][cost]") {
  Job job = uniform_job(2, 1.0);
  set_traffic(job, 0, 1, 1100000000u, 1000);
  const std::vector<Node> nodes = {node("a", 1), node("b", 1)};
  const Cost apart = predict_cost(job, nodes, {}, {"a", "b"});
  CHECK(apart.compute_s == Approx(1.0));
  CHECK(apart.communication_s == Approx(1.0 + 1000 * 15e-6));
  CHECK(apart.inter_node_bytes == 1100000000u);
  const Cost together = predict_cost(job, nodes, {}, {"a", "a"});
  CHECK(together.compute_s == Approx(2.0));  // two ranks share one core
  CHECK(together.communication_s == Approx(1.1 / 4 + 1000 * 0.5e-6));
  CHECK(together.inter_node_bytes == 0);
  CHECK_THROWS_WITH(predict_cost(job, nodes, {}, {"a", "z"}), "rank 1 is placed on unknown node 'z'");
}

TEST_CASE("sparse traffic: both directions and repeated entries add up, entries to itself are ignored",
          "[scheduler][cost]") {
  Job job = uniform_job(3, 1.0);
  job.traffic.rows = {{{1, 600, 4}, {0, 999, 9}, {1, 400, 6}}, {{0, 1000, 10}}, {}};
  const std::vector<Node> nodes = {node("a", 2), node("b", 2)};
  const Cost cost = predict_cost(job, nodes, {}, {"a", "b", "a"});
  CHECK(cost.inter_node_bytes == 2000u);  // 600 + 400 from 0 to 1, 1000 back; 0's entry to itself is not traffic
  CHECK(cost.communication_s == Approx(2000 / 1.1e9 + 20 * 15e-6));
}
