// Seed 000 §5.4: per-process re-placement versus the node-level baseline.
#include "scheduler/seed_scenarios.hpp"
#include "scheduler/tests/support.hpp"

using namespace yadokari::scheduler;
using namespace yadokari::scheduler::test;

TEST_CASE("seed 000: node-level gives 0:3, per-process gives 1:2", "[scheduler][seed]") {
  // 4-core PCs, orterun busy on the host: 3, 4, 4 usable slots; ranks (2,2,3); remote-b leaves.
  const Scenario s = seed000_per_process_scenario();
  const Placement node = place(Policy::node, s.job, s.nodes, s.current, s.options);
  CHECK(split_of(s, node) == "0:3");
  CHECK(counts(node) == std::map<std::string, int>{{"host", 2}, {"remote-a", 5}});  // 5 ranks on 4 cores
  const Placement balanced = place(Policy::balanced, s.job, s.nodes, s.current, s.options);
  CHECK(split_of(s, balanced) == "1:2");  // the thesis's best (179.63 s vs 212.85 s)
  CHECK(counts(balanced) == std::map<std::string, int>{{"host", 3}, {"remote-a", 4}});
  CHECK(split_of(s, place(Policy::speed, s.job, s.nodes, s.current, s.options)) == "1:2");
  // auto reproduces the thesis's optimum (R23/R24): compute-bound, so no node exceeds its cores.
  const Placement chosen = place(Policy::auto_, s.job, s.nodes, s.current, s.options);
  CHECK(split_of(s, chosen) == "1:2");
  CHECK(chosen.cost.compute_s == Approx(163.0));
  CHECK(node.cost.compute_s == Approx(163.0 * 5 / 4));
  for (const auto* p : {&node, &balanced, &chosen}) {
    CHECK(p->moved == std::vector<int>{4, 5, 6});
    check_consistent(*p, s.job, s.nodes, s.current, s.options.max_oversubscribe);
  }
}

TEST_CASE("seed 000 with (2,2,3) slots: node moves all three together, balanced splits", "[scheduler][seed]") {
  Scenario s = seed000_per_process_scenario(2, 2, 3);
  s.options.max_oversubscribe = 2.5;  // node-level puts 5 ranks on 2 slots
  const Placement node = place(Policy::node, s.job, s.nodes, s.current, s.options);
  const std::string node_split = split_of(s, node);
  CHECK((node_split == "3:0" || node_split == "0:3"));
  CHECK(node_split == "3:0");  // equal free slots: the lowest name wins
  const Placement balanced = place(Policy::balanced, s.job, s.nodes, s.current, s.options);
  const std::string balanced_split = split_of(s, balanced);
  CHECK((balanced_split == "1:2" || balanced_split == "2:1"));
  CHECK(balanced_split == "2:1");
  // With the default limit (2x) the node-level group no longer fits on one node and is split.
  s.options.max_oversubscribe = 2.0;
  const Placement capped = place(Policy::node, s.job, s.nodes, s.current, s.options);
  CHECK(split_of(s, capped) == "2:1");
  check_consistent(capped, s.job, s.nodes, s.current, 2.0);
  // And below 1.75x the 4 surviving slots cannot hold 7 ranks.
  s.options.max_oversubscribe = 1.5;
  CHECK_THROWS_WITH(place(Policy::node, s.job, s.nodes, s.current, s.options),
                    "the 2 surviving nodes have 4 slots for 7 ranks (allowed oversubscription 1.5x gives 6)");
}
