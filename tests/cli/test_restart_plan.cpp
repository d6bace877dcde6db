// The scheduler's inputs at a restart or rebalance (frontend/restart_plan.hpp): compute times from
// the last committed epoch reach the `speed` policy.
#include <catch2/catch.hpp>

#include <algorithm>

#include "runtime/cli/status_format.hpp"
#include "runtime/frontend/restart_plan.hpp"

using namespace yadokari;
using frontend::ClusterNode;

namespace {

const std::vector<ClusterNode> kNodes = {{"n1", "yksim-n1", 3, true, 0}, {"n2", "yksim-n2", 3, true, 0}};
const std::vector<std::string> kHosts = {"yksim-n1", "yksim-n1", "yksim-n2", "yksim-n2"};

long ranks_on(const scheduler::Placement& p, const std::string& host) {
  return std::count(p.node_of_rank.begin(), p.node_of_rank.end(), host);
}

}  // namespace

TEST_CASE("speed gives the slow node fewer ranks once compute times are measured", "[restart-plan]") {
  // n2's ranks computed 4x longer per epoch than n1's for the same work.
  const std::vector<std::optional<double>> compute = {0.2, 0.2, 0.8, 0.8};
  const auto plan = frontend::plan_restart(scheduler::Policy::speed, 4, kNodes, kHosts, 1.0, {}, compute);
  CHECK(ranks_on(plan.placement, "yksim-n1") == 3);
  CHECK(ranks_on(plan.placement, "yksim-n2") == 1);
  CHECK(plan.placement.moved == std::vector<int>{3});
  CHECK(plan.rank_map == "0,1,3,2");
  CHECK(plan.placement.explanation.find("yksim-n2 0.625 (inferred)") != std::string::npos);

  // Without measurements speed sees two equal nodes: nothing moves.
  const auto blind = frontend::plan_restart(scheduler::Policy::speed, 4, kNodes, kHosts, 1.0);
  CHECK(ranks_on(blind.placement, "yksim-n1") == 2);
  CHECK(blind.placement.moved.empty());
  CHECK(blind.placement.explanation.find("no speed measured") != std::string::npos);
}

TEST_CASE("compute times measured on another host than the rank's current one are dropped", "[restart-plan]") {
  const std::vector<std::optional<double>> seconds = {0.2, 0.3, 0.8, std::nullopt};
  const std::vector<std::string> measured_on = {"yksim-n1", "yksim-n3", "yksim-n2", ""};
  const auto here = frontend::compute_on_current_hosts(seconds, measured_on, kHosts);
  CHECK(here == std::vector<std::optional<double>>{0.2, std::nullopt, 0.8, std::nullopt});
  // Nothing measured where the ranks are: no compute input at all.
  CHECK(frontend::compute_on_current_hosts(seconds, {"a", "b", "c", "d"}, kHosts).empty());
  CHECK(frontend::compute_on_current_hosts({}, {}, kHosts).empty());
}

TEST_CASE("the log line sums compute times up per host", "[restart-plan]") {
  CHECK(frontend::compute_summary({0.2, 0.4, 0.9, std::nullopt}, kHosts) ==
        "yksim-n1 0.3 s (ranks 0,1), yksim-n2 0.9 s (rank 2); not measured: rank 3");
  CHECK(frontend::compute_summary({}, kHosts).empty());
  // Runs of ranks are ranges.
  const std::vector<std::string> hosts = {"a", "a", "a", "a", "b", "a"};
  CHECK(frontend::compute_summary({1.0, 1.0, 1.0, 1.0, 2.0, 1.0}, hosts) == "a 1 s (ranks 0-3,5), b 2 s (rank 4)");
}

TEST_CASE("status shows compute seconds, or that they are not measured", "[restart-plan]") {
  protocol::StatusReport report;
  report.ranks.resize(2);
  report.ranks[0].logical_rank = 0;
  report.ranks[0].compute_seconds = 3.0;
  report.ranks[1].logical_rank = 1;  // -1: not measured
  const auto json = cli::status_json(report);
  CHECK(json["ranks"][0]["compute_seconds"] == 3.0);
  CHECK(json["ranks"][1]["compute_seconds"].is_null());
  const std::string table = cli::status_table(report);
  CHECK(table.find("computing") != std::string::npos);
  CHECK(table.find("3.0s") != std::string::npos);
}
