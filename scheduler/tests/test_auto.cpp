// auto: the cost model picks consolidation for communication-bound jobs, spreading otherwise.
#include "scheduler/tests/support.hpp"

using namespace yadokari::scheduler;
using namespace yadokari::scheduler::test;

namespace {

// Seed 000 §5.7 shape: 8 ranks, nodes of 4 cores; n2 (ranks 4-7) is lost, n3 is free, so the
// job can spread (4 + 4) or consolidate on n1 (8 on 4 cores).
struct EightRanks {
  std::vector<Node> nodes = {node("n1", 4), node("n2", 4, false), node("n3", 4)};
  CurrentPlacement current = {"n1", "n1", "n1", "n1", "n2", "n2", "n2", "n2"};
};

}  // namespace

TEST_CASE("auto consolidates a communication-heavy job even oversubscribed", "[scheduler][auto]") {
  const EightRanks c;
  Job job = uniform_job(8, 0.1);     // IS-like: little compute
  all_to_all(job, 100000000, 1000);  // 100 MB between every pair each way per epoch
  const Placement p = place(Policy::auto_, job, c.nodes, c.current);
  CHECK(p.policy == "auto(consolidate)");
  CHECK(counts(p) == std::map<std::string, int>{{"n1", 8}});
  CHECK(p.moved == std::vector<int>{4, 5, 6, 7});
  CHECK(p.cost.inter_node_bytes == 0);
  CHECK(p.explanation.find("communication-bound") != std::string::npos);
  const Placement spread = place(Policy::balanced, job, c.nodes, c.current);
  CHECK(counts(spread) == std::map<std::string, int>{{"n1", 4}, {"n3", 4}});
  CHECK(p.cost.total_s < spread.cost.total_s);
  CHECK(p.cost.compute_s == Approx(0.2));
  check_consistent(p, job, c.nodes, c.current, 2.0);
}

TEST_CASE("auto spreads a compute-heavy job, a core per rank", "[scheduler][auto]") {
  const EightRanks c;
  Job job = uniform_job(8, 10.0);  // EP/N-queen-like
  all_to_all(job, 1000, 1);
  const Placement p = place(Policy::auto_, job, c.nodes, c.current);
  CHECK(p.policy == "auto(balanced)");
  CHECK(counts(p) == std::map<std::string, int>{{"n1", 4}, {"n3", 4}});
  CHECK(p.cost.compute_s == Approx(10.0));
  CHECK(p.explanation.find("compute-bound") != std::string::npos);
  CHECK(p.explanation.find("consolidate") != std::string::npos);  // the rejected candidate is listed
}

TEST_CASE("auto honours max_oversubscribe: no consolidation at 1x", "[scheduler][auto]") {
  const EightRanks c;
  Job job = uniform_job(8, 0.1);
  all_to_all(job, 100000000, 1000);
  Options options;
  options.max_oversubscribe = 1.0;
  const Placement p = place(Policy::auto_, job, c.nodes, c.current, options);
  CHECK(counts(p) == std::map<std::string, int>{{"n1", 4}, {"n3", 4}});
}

TEST_CASE("auto without compute times does not oversubscribe", "[scheduler][auto]") {
  const EightRanks c;
  Job job = uniform_job(8);
  all_to_all(job, 100000000, 1000);
  const Placement p = place(Policy::auto_, job, c.nodes, c.current);
  CHECK(counts(p) == std::map<std::string, int>{{"n1", 4}, {"n3", 4}});
  CHECK(p.explanation.find("No compute time was measured") != std::string::npos);
  CHECK_FALSE(p.cost.compute_known);
}

TEST_CASE("the cost model's parameters change the decision", "[scheduler][auto]") {
  // A moderately communicating job: with the default slow network it consolidates; with a
  // network as fast as shared memory, spreading wins.
  const EightRanks c;
  Job job = uniform_job(8, 0.5);
  all_to_all(job, 30000000, 100);
  CHECK(place(Policy::auto_, job, c.nodes, c.current).policy == "auto(consolidate)");
  Options fast;
  fast.cost.inter_bandwidth_Bps = fast.cost.intra_bandwidth_Bps;
  fast.cost.inter_latency_s = fast.cost.intra_latency_s;
  CHECK(place(Policy::auto_, job, c.nodes, c.current, fast).policy == "auto(balanced)");
  // A heavy oversubscription penalty (busy polling) also tips it back.
  Options penalty;
  penalty.cost.oversubscription_penalty = 10;
  CHECK(place(Policy::auto_, job, c.nodes, c.current, penalty).policy == "auto(balanced)");
}

TEST_CASE("auto with equal costs moves the fewest ranks", "[scheduler][auto]") {
  const Job job = uniform_job(4);
  const std::vector<Node> nodes = {node("a", 2), node("b", 2), node("c", 4)};
  const CurrentPlacement current = {"a", "a", "b", "b"};
  const Placement p = place(Policy::auto_, job, nodes, current);
  CHECK(p.moved.empty());
  CHECK(p.policy == "auto(balanced)");
}
