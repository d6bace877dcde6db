// Node agents and the coordinator's membership in one process, over real ZeroMQ TCP on loopback:
// authentication of agents, heartbeats, a lost node's verdict, StopProcesses.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <future>
#include <thread>

#include "agent_harness.hpp"

using namespace yadokari;
using namespace std::chrono_literals;

using namespace agent_harness;

TEST_CASE("an agent with the job's secret joins and stays alive while it beats", "[agents]") {
  Cluster cluster;
  AgentThread n1(cluster.coordinator.control_endpoint(), "n1", kSecret);
  REQUIRE(cluster.serve_until([&] { return state_of(cluster.coordinator, "n1") == "alive"; }));
  CHECK_FALSE(cluster.coordinator.agent_hostname("n1").empty());
  CHECK(state_of(cluster.coordinator, "n2") == "no agent");
  // Twenty intervals of service: heartbeats keep it alive (no verdict may appear).
  for (int i = 0; i < 50; ++i) cluster.coordinator.poll(20ms);
  CHECK(cluster.coordinator.take_lost_nodes().empty());
  CHECK(state_of(cluster.coordinator, "n1") == "alive");
}

TEST_CASE("a silent agent's node is declared lost, once, with the silence it had", "[agents]") {
  Cluster cluster(3);
  {
    AgentThread n1(cluster.coordinator.control_endpoint(), "n1", kSecret);
    REQUIRE(cluster.serve_until([&] { return state_of(cluster.coordinator, "n1") == "alive"; }));
  }  // the agent stops: its heartbeats stop
  std::vector<membership::NodeEvent> lost;
  REQUIRE(cluster.serve_until([&] {
    for (auto& event : cluster.coordinator.take_lost_nodes()) lost.push_back(event);
    return !lost.empty();
  }));
  REQUIRE(lost.size() == 1);
  CHECK(lost[0].node == "n1");
  CHECK(lost[0].silence >= 150ms);
  CHECK(state_of(cluster.coordinator, "n1") == "lost");
  CHECK(cluster.logged("yadokari: node n1 lost: no heartbeat for "));
  CHECK(cluster.logged("(3 missed intervals of 50 ms)"));
  // A new agent for a lost node is refused: its ranks are gone from this incarnation.
  AgentThread again(cluster.coordinator.control_endpoint(), "n1", kSecret);
  REQUIRE(cluster.serve_until([&] { return again.finished(); }));
  CHECK(again.result.get() == 1);
  CHECK(cluster.logged("): node n1 was declared lost"));
}

TEST_CASE("an agent with the wrong secret is refused, logged, and exits 1", "[agents]") {
  Cluster cluster;
  AgentThread intruder(cluster.coordinator.control_endpoint(), "n1", "wrong-secret");
  REQUIRE(cluster.serve_until([&] { return intruder.finished(); }));
  CHECK(intruder.result.get() == 1);
  CHECK(cluster.logged("yadokari: refused node agent from "));
  CHECK(cluster.logged("(node n1, pid " + std::to_string(getpid())));
  CHECK(cluster.logged("): wrong job secret"));
  CHECK(state_of(cluster.coordinator, "n1") == "no agent");
}

TEST_CASE("an agent for a node outside the job is refused", "[agents]") {
  Cluster cluster;
  AgentThread stranger(cluster.coordinator.control_endpoint(), "n9", kSecret);
  REQUIRE(cluster.serve_until([&] { return stranger.finished(); }));
  CHECK(stranger.result.get() == 1);
  CHECK(cluster.logged("): node n9 is not part of this job"));
}

TEST_CASE("an agent without a coordinator gives up with one line", "[agents]") {
  agent::AgentOptions options;
  options.coordinator = "tcp://127.0.0.1:1";  // nothing listens there
  options.node = "n1";
  options.job_id = kJob;
  options.secret = kSecret;
  options.hello_timeout = 300ms;
  CHECK(agent::run_node_agent(options) == 1);
}

TEST_CASE("StopProcesses makes the agent kill the named processes", "[agents]") {
  Cluster cluster;
  AgentThread n2(cluster.coordinator.control_endpoint(), "n2", kSecret);
  REQUIRE(cluster.serve_until([&] { return state_of(cluster.coordinator, "n2") == "alive"; }));
  const pid_t victim = fork();
  if (victim == 0) {
    pause();
    _exit(0);
  }
  REQUIRE(cluster.coordinator.stop_processes("n2", {victim}));
  CHECK_FALSE(cluster.coordinator.stop_processes("n1", {victim}));  // n1 has no agent
  int status = 0;
  REQUIRE(cluster.serve_until([&] { return waitpid(victim, &status, WNOHANG) == victim; }));
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

TEST_CASE("a node that joins with the job's secret becomes part of the job", "[agents]") {
  auto cluster = std::make_unique<Cluster>();
  AgentThread n3(cluster->coordinator.control_endpoint(), "n3", kSecret, 4);
  REQUIRE(cluster->serve_until([&] { return state_of(cluster->coordinator, "n3") == "alive"; }));
  CHECK(cluster->logged("yadokari: node n3 joined (4 slots, agent pid "));
  CHECK(cluster->coordinator.expects_node("n3"));
  int slots = 0;
  for (const auto& node : cluster->coordinator.nodes())
    if (node.node == "n3") slots = node.slots;
  CHECK(slots == 4);

  AgentThread intruder(cluster->coordinator.control_endpoint(), "n4", "guessed", 2);
  REQUIRE(cluster->serve_until([&] { return intruder.finished(); }));
  CHECK(intruder.result.get() == 1);
  CHECK_FALSE(cluster->coordinator.expects_node("n4"));
  CHECK(cluster->logged("(node n4, pid "));

  AgentThread twice(cluster->coordinator.control_endpoint(), "n3", kSecret, 4);
  REQUIRE(cluster->serve_until([&] { return twice.finished(); }));
  CHECK(twice.result.get() == 1);
  CHECK(cluster->logged("node n3 is already part of this job"));

  // The job ends: the coordinator says goodbye and the joined agent ends by itself.
  cluster.reset();
  CHECK(n3.result.wait_for(30s) == std::future_status::ready);
  CHECK(n3.result.get() == 0);
}
