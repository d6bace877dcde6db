// Ranks relayed by their node's agent (runtime/agent/rank_relay.hpp): a real coordinator, a real
// agent on a thread and real rank clients in one process. The ranks register and answer a
// status query through the relay; the checkpoint protocol through it runs in the simulated
// cluster's tests (tests/sim), where every job's ranks are relayed.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/parameters.hpp"
#include "pmpi-layer/src/link/rank_client.hpp"
#include "protocol/relay_socket.hpp"
#include "tests/cli/agent_harness.hpp"

using namespace yadokari;
using namespace agent_harness;
using link::RankControlClient;

namespace {

// Tests run in parallel processes on one host: a job id of this process's own keeps their relay
// sockets apart.
const std::string kRelayJob = "yk-relay-" + std::to_string(getpid());

// An agent of that job on this host, relaying.
struct RelayAgent : AgentThread {
  explicit RelayAgent(const Cluster& cluster)
      : AgentThread(cluster.coordinator.control_endpoint(), "n1", cluster.credential(), 0, {}, 60s, true, kRelayJob) {}
};

// The ranks' environment, as the front end sets it.
struct RankEnvironment {
  RankEnvironment(const std::string& endpoint, const std::string& credential, const char* relay) {
    setenv(parameters::kControl, endpoint.c_str(), 1);
    setenv(parameters::kJobId, kRelayJob.c_str(), 1);
    setenv(parameters::kJobSecret, credential.c_str(), 1);
    if (relay)
      setenv(parameters::kAgentRelay, relay, 1);
    else
      unsetenv(parameters::kAgentRelay);
  }
  ~RankEnvironment() {
    for (const char* name : {parameters::kControl, parameters::kJobId, parameters::kJobSecret, parameters::kAgentRelay})
      unsetenv(name);
  }
};

std::string this_host() {  // the agent's and the ranks' (one process here)
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// Two ranks of a world of two; what their control threads hear of the checkpoint protocol.
struct Ranks {
  std::mutex mutex;
  std::vector<std::string> heard;
  std::vector<std::unique_ptr<RankControlClient>> clients;

  Ranks() {
    for (std::int32_t rank = 0; rank < 2; ++rank) {
      link::RankIdentity id;
      id.logical_rank = rank;
      id.world_size = 2;
      id.flavour = "openmpi";
      clients.push_back(RankControlClient::start_from_env(
          id, [] { return protocol::RankStatus{}; },
          [this, rank](const protocol::Message& message) {
            std::lock_guard<std::mutex> lock(mutex);
            heard.push_back(std::to_string(rank) + ":" +
                            std::string(protocol::message_type_name(protocol::type_of(message))));
          }));
      REQUIRE(clients.back());
    }
  }
  bool all_registered() const { return clients[0]->registered() && clients[1]->registered(); }
  std::size_t count(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex);
    return static_cast<std::size_t>(std::count(heard.begin(), heard.end(), what));
  }
};

}  // namespace

TEST_CASE("the ranks of a node with an agent reach the coordinator through its relay", "[agents][relay]") {
  Cluster cluster(Cluster::kLossesNotWanted, 2, kRelayJob);
  RelayAgent n1(cluster);
  REQUIRE(cluster.serve_until([&] { return state_of(cluster.coordinator, "n1") == "alive"; }));
  const std::string socket = protocol::relay_socket_path(kRelayJob, this_host());
  REQUIRE(cluster.serve_until([&] { return protocol::relay_listening(socket); }));

  RankEnvironment env(cluster.coordinator.control_endpoint(), cluster.credential(), nullptr);
  Ranks ranks;
  REQUIRE(cluster.serve_until([&] { return ranks.all_registered(); }));
  CHECK(cluster.coordinator.relayed_ranks() == 2);
  CHECK(cluster.coordinator.relayed_batches() >= 1);

  // A status query goes to the agent once for both ranks, and both answers come back, in one
  // batch when the second comes within the agent's linger, else two.
  const std::uint64_t batches_before = cluster.coordinator.relayed_batches();
  const protocol::StatusReport report = cluster.coordinator.query_all(std::chrono::seconds(60));
  CHECK(report.ranks.size() == 2);
  CHECK(report.ranks_not_answering.empty());
  const std::uint64_t batches = cluster.coordinator.relayed_batches() - batches_before;
  CHECK(batches >= 1);
  CHECK(batches <= 2);

  // The agent ends: its relay socket goes with it, so a rank started now connects directly.
  n1.stop = true;
  n1.result.wait();
  CHECK_FALSE(std::filesystem::exists(socket));
}

TEST_CASE("YADOKARI_AGENT_RELAY=off makes a rank connect to the coordinator itself", "[agents][relay]") {
  Cluster cluster(Cluster::kLossesNotWanted, 2, kRelayJob);
  RelayAgent n1(cluster);
  REQUIRE(cluster.serve_until([&] { return state_of(cluster.coordinator, "n1") == "alive"; }));
  REQUIRE(cluster.serve_until(
      [&] { return protocol::relay_listening(protocol::relay_socket_path(kRelayJob, this_host())); }));
  RankEnvironment env(cluster.coordinator.control_endpoint(), cluster.credential(), "off");
  Ranks ranks;
  REQUIRE(cluster.serve_until([&] { return ranks.all_registered(); }));
  CHECK(cluster.coordinator.relayed_ranks() == 0);
  CHECK(cluster.coordinator.relayed_batches() == 0);
}

namespace {
// A socket file nobody listens on, as a SIGKILLed agent leaves it, last changed `age` ago.
std::string dead_socket(const std::string& name, std::chrono::seconds age) {
  const std::string path = protocol::relay_socket_path(name, "dead");
  std::filesystem::remove(path);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  close(fd);
  const timespec then{time(nullptr) - age.count(), 0};
  const timespec times[2] = {then, then};
  REQUIRE(utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
  return path;
}
}  // namespace

TEST_CASE("an agent removes the relay sockets killed agents left long ago, and only those", "[agents][relay]") {
  REQUIRE(protocol::prepare_relay_directory().empty());
  const std::string old_dead = dead_socket("yk-relay-old-dead", std::chrono::seconds(3600));
  const std::string new_dead = dead_socket("yk-relay-new-dead", std::chrono::seconds(0));
  Cluster cluster(Cluster::kLossesNotWanted, 2, kRelayJob);
  const std::string live = protocol::relay_socket_path(kRelayJob, this_host());
  {
    RelayAgent n1(cluster);
    REQUIRE(cluster.serve_until([&] { return protocol::relay_listening(live); }));
    CHECK_FALSE(std::filesystem::exists(old_dead));
    CHECK(std::filesystem::exists(new_dead));  // may be an agent that has not listened yet
    // A live agent's socket, however old, is never removed.
    const timespec then{time(nullptr) - 3600, 0};
    const timespec times[2] = {then, then};
    REQUIRE(utimensat(AT_FDCWD, live.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
    (void)protocol::remove_dead_relay_sockets(std::chrono::seconds(60));
    CHECK(std::filesystem::exists(live));
    CHECK(protocol::relay_listening(live));
  }
  std::filesystem::remove(new_dead);
}

TEST_CASE("a relay socket left by a killed agent is not used, and a new agent replaces it", "[agents][relay]") {
  REQUIRE(protocol::prepare_relay_directory().empty());
  const std::string socket = protocol::relay_socket_path(kRelayJob, this_host());
  // A file nobody listens on, where a SIGKILLed agent's socket would be.
  std::filesystem::remove(socket);
  { std::ofstream(socket) << ""; }
  CHECK_FALSE(protocol::relay_listening(socket));

  Cluster cluster(Cluster::kLossesNotWanted, 2, kRelayJob);
  {
    // Without an agent the ranks connect directly, although the file exists.
    RankEnvironment env(cluster.coordinator.control_endpoint(), cluster.credential(), nullptr);
    Ranks ranks;
    REQUIRE(cluster.serve_until([&] { return ranks.all_registered(); }));
    CHECK(cluster.coordinator.relayed_ranks() == 0);
  }
  RelayAgent n1(cluster);
  REQUIRE(cluster.serve_until([&] { return protocol::relay_listening(socket); }));
}
