// Node agents and the coordinator's membership in one process, over real ZeroMQ TCP on loopback:
// authentication of agents, heartbeats, a lost node's verdict, StopProcesses.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <catch2/catch.hpp>
#include <future>
#include <thread>
#include <zmq.hpp>

#include "runtime/agent/job_processes.hpp"
#include "tests/cli/agent_harness.hpp"
#include "protocol/codec.hpp"
#include "protocol/curve.hpp"

using namespace yadokari;
using namespace std::chrono_literals;

using namespace agent_harness;

TEST_CASE("an agent with the job's secret joins and stays alive while it beats", "[agents]") {
  Cluster cluster;
  AgentThread n1(cluster.coordinator.control_endpoint(), "n1", cluster.credential());
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
    AgentThread n1(cluster.coordinator.control_endpoint(), "n1", cluster.credential());
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
  AgentThread again(cluster.coordinator.control_endpoint(), "n1", cluster.credential());
  REQUIRE(cluster.serve_until([&] { return again.finished(); }));
  CHECK(again.result.get() == 1);
  CHECK(cluster.logged("): node n1 was declared lost"));
}

// An agent queues a whole image's chunks at once; a heartbeat sent meanwhile reaches the
// coordinator only after them, seconds later over a slow link or through a loaded front end.
TEST_CASE("an agent's image traffic keeps its node alive as heartbeats do", "[agents]") {
  Cluster cluster(3);  // lost after 3 x 50 ms of silence
  zmq::context_t context;
  zmq::socket_t agent(context, zmq::socket_type::dealer);
  agent.set(zmq::sockopt::linger, 0);
  protocol::connect_with_curve(agent, protocol::parse_credential(cluster.credential())->coordinator_key);
  agent.connect(cluster.coordinator.control_endpoint());
  const std::string hello = protocol::encode(protocol::AgentHello{kJob, kSecret, "n1", "host-n1", getpid(), 0, 0, {}});
  agent.send(zmq::buffer(hello), zmq::send_flags::none);
  REQUIRE(cluster.serve_until([&] { return state_of(cluster.coordinator, "n1") == "alive"; }));
  // No heartbeat from here on, only chunks of a copy, one per turn of the coordinator's loop,
  // for 40 loss periods.
  protocol::ImageChunk chunk;
  chunk.order_id = 7;
  chunk.epoch = 1;
  chunk.rank = 0;
  chunk.to_node = "n2";
  chunk.bytes.assign(protocol::ImageChunk::kMaxBytes, 'x');
  for (int turn = 0; turn < 300; ++turn) {
    chunk.offset = static_cast<std::uint64_t>(turn) * chunk.bytes.size();
    agent.send(zmq::buffer(protocol::encode(chunk)), zmq::send_flags::none);
    cluster.coordinator.poll(20ms);
  }
  CHECK(cluster.coordinator.take_lost_nodes().empty());
  CHECK(state_of(cluster.coordinator, "n1") == "alive");
  // Silence afterwards still makes it lost.
  REQUIRE(cluster.serve_until([&] { return state_of(cluster.coordinator, "n1") == "lost"; }));
}

TEST_CASE("an agent with the wrong secret is refused, logged, and exits 1", "[agents]") {
  Cluster cluster;
  AgentThread intruder(cluster.coordinator.control_endpoint(), "n1", cluster.credential_with_secret("wrong-secret"));
  REQUIRE(cluster.serve_until([&] { return intruder.finished(); }));
  CHECK(intruder.result.get() == 1);
  CHECK(cluster.logged("yadokari: refused node agent from "));
  CHECK(cluster.logged("(node n1, pid " + std::to_string(getpid())));
  CHECK(cluster.logged("): wrong job secret"));
  CHECK(state_of(cluster.coordinator, "n1") == "no agent");
}

TEST_CASE("an agent for a node outside the job is refused", "[agents]") {
  Cluster cluster;
  AgentThread stranger(cluster.coordinator.control_endpoint(), "n9", cluster.credential());
  REQUIRE(cluster.serve_until([&] { return stranger.finished(); }));
  CHECK(stranger.result.get() == 1);
  CHECK(cluster.logged("): node n9 is not part of this job"));
}

TEST_CASE("an agent without a coordinator gives up with one line", "[agents]") {
  agent::AgentOptions options;
  options.coordinator = "tcp://127.0.0.1:1";  // nothing listens there
  options.node = "n1";
  options.job_id = kJob;
  options.credential = yadokari::protocol::make_credential(kSecret, std::string(32, 'k'));
  options.hello_timeout = 300ms;
  CHECK(agent::run_node_agent(options) == 1);
}

namespace {
// A process started with the environment the job's ranks get (or another job's).
pid_t sleeper_of_job(const std::string& job_id) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string variable = "YADOKARI_JOB_ID=" + job_id;
    char* const argv[] = {const_cast<char*>("sleep"), const_cast<char*>("600"), nullptr};
    char* const envp[] = {const_cast<char*>(variable.c_str()), nullptr};
    execve("/bin/sleep", argv, envp);
    _exit(127);
  }
  return pid;
}

// Waits until /proc shows the exec finished: the new name, and the new program's environment.
// The kernel sets the name before it lays out the new stack, so for a moment a process is called
// "sleep" while /proc/PID/environ is still empty.
void wait_for_exec(pid_t pid) {
  for (int i = 0; i < 1000; ++i) {
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::ifstream environ("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    std::string name, first_variable;
    if (std::getline(comm, name) && name == "sleep" && std::getline(environ, first_variable, '\0') &&
        first_variable.starts_with("YADOKARI_JOB_ID="))
      return;
    std::this_thread::sleep_for(5ms);
  }
}
}  // namespace

TEST_CASE("StopProcesses makes the agent kill the named processes of its job, and only those", "[agents]") {
  Cluster cluster;
  AgentThread n2(cluster.coordinator.control_endpoint(), "n2", cluster.credential());
  REQUIRE(cluster.serve_until([&] { return state_of(cluster.coordinator, "n2") == "alive"; }));
  const pid_t victim = sleeper_of_job(kJob);
  const pid_t bystander = sleeper_of_job("yk-other-job");
  wait_for_exec(victim);
  wait_for_exec(bystander);
  CHECK(agent::belongs_to_job(victim, kJob));
  CHECK_FALSE(agent::belongs_to_job(bystander, kJob));
  CHECK_FALSE(agent::belongs_to_job(1, kJob));

  REQUIRE(cluster.coordinator.stop_processes("n2", {bystander, victim}));
  CHECK_FALSE(cluster.coordinator.stop_processes("n1", {victim}));  // n1 has no agent
  int status = 0;
  REQUIRE(cluster.serve_until([&] { return waitpid(victim, &status, WNOHANG) == victim; }));
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  // The order named the other job's process first: had the agent obeyed, it would be dead by now.
  CHECK(waitpid(bystander, &status, WNOHANG) == 0);
  kill(bystander, SIGKILL);
  waitpid(bystander, &status, 0);
}

TEST_CASE("an agent whose coordinator is gone ends instead of running on headless", "[agents]") {
  // The front end dies without a goodbye (SIGKILL): its coordinator runs in a child process.
  int to_parent[2];
  REQUIRE(pipe(to_parent) == 0);
  const pid_t front_end = fork();
  if (front_end == 0) {
    close(to_parent[0]);
    Cluster cluster;
    const std::string endpoint = cluster.coordinator.control_endpoint() + "\n" + cluster.credential() + "\n";
    (void)!write(to_parent[1], endpoint.data(), endpoint.size());
    cluster.serve_until([&] { return state_of(cluster.coordinator, "n2") == "alive"; });
    (void)!write(to_parent[1], "alive\n", 6);
    for (;;) cluster.coordinator.poll(20ms);
  }
  close(to_parent[1]);
  FILE* from_child = fdopen(to_parent[0], "r");
  char line[256] = {};
  REQUIRE(std::fgets(line, sizeof line, from_child) != nullptr);
  std::string endpoint(line);
  endpoint.pop_back();
  REQUIRE(std::fgets(line, sizeof line, from_child) != nullptr);
  std::string credential(line);
  credential.pop_back();

  AgentThread n2(endpoint, "n2", credential, 0, {}, 300ms);
  REQUIRE(std::fgets(line, sizeof line, from_child) != nullptr);
  CHECK(std::string(line) == "alive\n");
  CHECK_FALSE(n2.finished());
  kill(front_end, SIGKILL);
  int status = 0;
  waitpid(front_end, &status, 0);
  std::fclose(from_child);
  // The cap only turns a hang into a failure; it is not a timing expectation.
  REQUIRE(n2.result.wait_for(60s) == std::future_status::ready);
  CHECK(n2.result.get() == 1);
}

TEST_CASE("a node that joins with the job's secret becomes part of the job", "[agents]") {
  auto cluster = std::make_unique<Cluster>();
  AgentThread n3(cluster->coordinator.control_endpoint(), "n3", cluster->credential(), 4);
  REQUIRE(cluster->serve_until([&] { return state_of(cluster->coordinator, "n3") == "alive"; }));
  CHECK(cluster->logged("yadokari: node n3 joined (4 slots, agent pid "));
  CHECK(cluster->coordinator.expects_node("n3"));
  int slots = 0;
  for (const auto& node : cluster->coordinator.nodes())
    if (node.node == "n3") slots = node.slots;
  CHECK(slots == 4);

  AgentThread intruder(cluster->coordinator.control_endpoint(), "n4", cluster->credential_with_secret("guessed"), 2);
  REQUIRE(cluster->serve_until([&] { return intruder.finished(); }));
  CHECK(intruder.result.get() == 1);
  CHECK_FALSE(cluster->coordinator.expects_node("n4"));
  CHECK(cluster->logged("(node n4, pid "));

  AgentThread twice(cluster->coordinator.control_endpoint(), "n3", cluster->credential(), 4);
  REQUIRE(cluster->serve_until([&] { return twice.finished(); }));
  CHECK(twice.result.get() == 1);
  CHECK(cluster->logged("node n3 is already part of this job"));

  // The job ends: the coordinator says goodbye and the joined agent ends by itself.
  cluster.reset();
  CHECK(n3.result.wait_for(30s) == std::future_status::ready);
  CHECK(n3.result.get() == 0);
}

// A StopProcesses order may name ranks the front end has just killed itself: the agent skips them
// (no "not a process of job" refusal) because they have ended, a zombie included.
TEST_CASE("a pid that has ended is not running, a zombie included", "[agents]") {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  siginfo_t info{};
  REQUIRE(waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT) == 0);  // left a zombie
  CHECK_FALSE(agent::still_running(child));
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK_FALSE(agent::still_running(child));
  CHECK(agent::still_running(getpid()));
}
