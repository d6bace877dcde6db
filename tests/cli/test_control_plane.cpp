// Coordinator and rank clients in one process, over real ZeroMQ TCP sockets on loopback.
#include <algorithm>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <functional>
#include <thread>
#include <zmq.hpp>

#include "runtime/control/coordinator.hpp"
#include "pmpi-layer/src/link/rank_client.hpp"
#include "runtime/control/status_client.hpp"
#include "protocol/credential.hpp"
#include "protocol/curve.hpp"

using namespace yadokari::control;
using namespace yadokari::link;
using namespace yadokari::protocol;
using namespace std::chrono_literals;

namespace {

constexpr const char* kJob = "yk-test";
constexpr const char* kSecret = "right-secret";

// A credential for a coordinator that does not run (protocol/credential.hpp).
const std::string kNoCoordinatorCredential = yadokari::protocol::make_credential(kSecret, std::string(32, 'k'));

// The environment `yadokari run` gives a rank.
struct RankEnvironment {
  RankEnvironment(const std::string& endpoint, const std::string& job, const std::string& secret) {
    setenv("YADOKARI_CONTROL", endpoint.c_str(), 1);
    setenv("YADOKARI_JOB_ID", job.c_str(), 1);
    setenv("YADOKARI_JOB_SECRET", secret.c_str(), 1);
  }
  ~RankEnvironment() {
    unsetenv("YADOKARI_CONTROL");
    unsetenv("YADOKARI_JOB_ID");
    unsetenv("YADOKARI_JOB_SECRET");
  }
};

struct Fixture {
  std::vector<std::string> log;
  Coordinator coordinator{[this] {
    CoordinatorConfig config;
    config.job_id = kJob;
    config.secret = kSecret;
    config.app = "./app";
    config.flavour = "openmpi";
    config.world_size = 2;
    config.log = [this](const std::string& line) { log.push_back(line); };
    return config;
  }()};

  // Serves until `done` holds. The cap only turns a hang into a failure; it is not a timing
  // expectation.
  bool serve_until(const std::function<bool()>& done) {
    for (int i = 0; i < 1200; ++i) {
      if (done()) return true;
      coordinator.poll(50ms);
    }
    return done();
  }
};

// The coordinator's public key, from its credential.
std::string coordinator_key(const Coordinator& coordinator) {
  return yadokari::protocol::parse_credential(coordinator.credential())->coordinator_key;
}

// The coordinator's key with another secret: a client that learnt the endpoint and the key only.
std::string credential_with_secret(const Coordinator& coordinator, const std::string& secret) {
  return yadokari::protocol::make_credential(secret, coordinator_key(coordinator));
}

std::string hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

RankStatus busy_rank() {
  RankStatus s;
  s.mpi_calls_total = 42;
  s.messages_sent = 2;
  s.bytes_sent = 16;
  s.messages_received = 3;
  s.bytes_received = 24;
  s.current_call = "MPI_Recv";
  s.seconds_since_init = 1.5;
  s.logical_rank = 99;  // the client must replace identity fields with its own
  return s;
}

std::unique_ptr<RankControlClient> start_rank(std::int32_t rank, std::int32_t world = 2) {
  RankIdentity id;
  id.logical_rank = rank;
  id.world_size = world;
  id.flavour = "openmpi";
  return RankControlClient::start_from_env(id, busy_rank);
}

}  // namespace

TEST_CASE("endpoints are concrete loopback TCP addresses", "[control]") {
  Fixture f;
  CHECK(f.coordinator.control_endpoint().rfind("tcp://127.0.0.1:", 0) == 0);
  CHECK(f.coordinator.status_endpoint().rfind("tcp://127.0.0.1:", 0) == 0);
  CHECK(f.coordinator.control_endpoint() != f.coordinator.status_endpoint());
}

TEST_CASE("without YADOKARI_CONTROL there is no client", "[control]") {
  unsetenv("YADOKARI_CONTROL");
  CHECK(start_rank(0) == nullptr);
}

TEST_CASE("a malformed endpoint gives no client instead of an exception", "[control]") {
  RankEnvironment env("not-an-endpoint", kJob, kNoCoordinatorCredential);
  CHECK(start_rank(0) == nullptr);
}

TEST_CASE("a rank with the job's secret registers and reports its snapshot", "[control]") {
  Fixture f;
  RankEnvironment env(f.coordinator.control_endpoint(), kJob, f.coordinator.credential());
  auto client = start_rank(1);
  REQUIRE(client);
  REQUIRE(f.serve_until([&] { return client->registered(); }));
  CHECK(f.coordinator.registered_ranks() == std::vector<std::int32_t>{1});
  CHECK(f.log.empty());

  const StatusReport report = f.coordinator.query_all(30s);
  CHECK(report.job_id == kJob);
  CHECK(report.app == "./app");
  CHECK(report.flavour == "openmpi");
  CHECK(report.world_size == 2);
  REQUIRE(report.ranks.size() == 1);
  const RankStatus& r = report.ranks[0];
  CHECK(r.logical_rank == 1);
  CHECK(r.pid == getpid());
  CHECK(r.hostname == hostname());
  CHECK(r.mpi_calls_total == 42);
  CHECK(r.messages_sent == 2);
  CHECK(r.bytes_sent == 16);
  CHECK(r.messages_received == 3);
  CHECK(r.bytes_received == 24);
  CHECK(r.current_call == "MPI_Recv");
  CHECK(r.seconds_since_init == 1.5);
  CHECK(report.ranks_not_answering == std::vector<std::int32_t>{0});
}

TEST_CASE("a rank with the wrong secret is refused and logged", "[control]") {
  Fixture f;
  RankEnvironment env(f.coordinator.control_endpoint(), kJob, credential_with_secret(f.coordinator, "wrong-secret"));
  auto client = start_rank(0);
  REQUIRE(client);
  REQUIRE(f.serve_until([&] { return !f.log.empty(); }));
  CHECK(f.log == std::vector<std::string>{"yadokari: refused registration from 127.0.0.1 (rank 0, pid " +
                                          std::to_string(getpid()) + " on " + hostname() + "): wrong job secret"});
  CHECK(f.coordinator.registered_ranks().empty());
  CHECK_FALSE(client->registered());
  const StatusReport report = f.coordinator.query_all(30s);
  CHECK(report.ranks.empty());
  CHECK(report.ranks_not_answering == std::vector<std::int32_t>{0, 1});
}

TEST_CASE("a second registration of a live rank is refused and does not take it over", "[control]") {
  Fixture f;
  RankEnvironment env(f.coordinator.control_endpoint(), kJob, f.coordinator.credential());
  auto first = start_rank(1);
  REQUIRE(first);
  REQUIRE(f.serve_until([&] { return first->registered(); }));
  const auto before = f.coordinator.registrations();
  REQUIRE(before.size() == 1);

  // Someone who learnt the secret registers as rank 1 again, on another connection.
  auto replay = start_rank(1);
  REQUIRE(replay);
  REQUIRE(f.serve_until([&] { return !f.log.empty(); }));
  CHECK(f.log == std::vector<std::string>{"yadokari: refused registration from 127.0.0.1 (rank 1, pid " +
                                          std::to_string(getpid()) + " on " + hostname() +
                                          "): logical rank 1 is already registered (pid " + std::to_string(getpid()) +
                                          " on " + hostname() + ")"});
  CHECK_FALSE(replay->registered());
  CHECK(f.coordinator.registered_ranks() == std::vector<std::int32_t>{1});
  // The first connection still speaks for rank 1: it answers the status query.
  const StatusReport report = f.coordinator.query_all(30s);
  REQUIRE(report.ranks.size() == 1);
  CHECK(report.ranks[0].logical_rank == 1);

  // A new incarnation (an automatic restart) forgets the old ranks: the rank may register again.
  f.coordinator.begin_incarnation();
  auto restarted = start_rank(1);
  REQUIRE(restarted);
  REQUIRE(f.serve_until([&] { return restarted->registered(); }));
}

TEST_CASE("ranks of another job or outside the world are refused", "[control]") {
  Fixture f;
  {
    RankEnvironment env(f.coordinator.control_endpoint(), "yk-other", f.coordinator.credential());
    auto client = start_rank(0);
    REQUIRE(f.serve_until([&] { return f.log.size() == 1; }));
    CHECK(f.log.back().find("): wrong job id") != std::string::npos);
  }
  {
    RankEnvironment env(f.coordinator.control_endpoint(), kJob, f.coordinator.credential());
    auto client = start_rank(2);
    REQUIRE(f.serve_until([&] { return f.log.size() == 2; }));
    CHECK(f.log.back().find("): logical rank 2 is outside the job's world of 2") != std::string::npos);
  }
  CHECK(f.coordinator.registered_ranks().empty());
}

TEST_CASE("messages of another protocol version are ignored and logged", "[control]") {
  Fixture f;
  zmq::context_t context;
  zmq::socket_t dealer(context, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  yadokari::protocol::connect_with_curve(dealer, coordinator_key(f.coordinator));
  dealer.connect(f.coordinator.control_endpoint());
  std::string bytes = encode(RegisterRank{kJob, kSecret, 0, 2, 1, "h", "openmpi"});
  const int other_version = kProtocolVersion + 1;
  bytes[2] = static_cast<char>(other_version);  // little-endian: the low byte (the high one is 0)
  dealer.send(zmq::buffer(bytes), zmq::send_flags::none);
  REQUIRE(f.serve_until([&] { return !f.log.empty(); }));
  CHECK(f.log[0] == "yadokari: ignored control message from 127.0.0.1: control message has protocol version " +
                        std::to_string(other_version) + ", this build speaks version " +
                        std::to_string(kProtocolVersion));
  CHECK(f.coordinator.registered_ranks().empty());
}

TEST_CASE("ranks may not send what only the front end sends", "[control]") {
  Fixture f;
  zmq::context_t context;
  zmq::socket_t dealer(context, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  yadokari::protocol::connect_with_curve(dealer, coordinator_key(f.coordinator));
  dealer.connect(f.coordinator.control_endpoint());
  const std::string bytes = encode(StatusReport{});
  dealer.send(zmq::buffer(bytes), zmq::send_flags::none);
  REQUIRE(f.serve_until([&] { return !f.log.empty(); }));
  CHECK(f.log[0] == "yadokari: ignored control message from 127.0.0.1: unexpected control message StatusReport");
}

TEST_CASE("the status endpoint answers CLI clients that know the secret", "[control]") {
  Fixture f;
  RankEnvironment env(f.coordinator.control_endpoint(), kJob, f.coordinator.credential());
  auto rank0 = start_rank(0);
  auto rank1 = start_rank(1);
  REQUIRE(f.serve_until([&] { return rank0->registered() && rank1->registered(); }));

  auto ask = [&](const std::string& credential) {
    std::atomic<bool> done{false};
    StatusReport report;
    std::string error;
    std::thread cli([&] {
      try {
        report = request_status(f.coordinator.status_endpoint(), kJob, credential, 60s);
      } catch (const StatusError& e) {
        error = e.what();
      }
      done = true;
    });
    f.serve_until([&] { return done.load(); });
    cli.join();
    return std::make_pair(report, error);
  };

  const auto [report, error] = ask(f.coordinator.credential());
  CHECK(error.empty());
  REQUIRE(report.ranks.size() == 2);
  CHECK(report.ranks[0].logical_rank == 0);
  CHECK(report.ranks[1].logical_rank == 1);
  CHECK(report.ranks_not_answering.empty());

  const auto [refused, refusal] = ask(credential_with_secret(f.coordinator, "guess"));
  CHECK(refused.ranks.empty());
  CHECK(refusal == "job yk-test refused the status request: wrong job id or secret");
}

TEST_CASE("a rank holding another coordinator's key never reaches this one", "[control][curve]") {
  Fixture f;
  const auto other = yadokari::protocol::make_curve_keypair();
  RankEnvironment env(f.coordinator.control_endpoint(), kJob,
                      yadokari::protocol::make_credential(kSecret, other.public_key));
  auto client = start_rank(0);
  REQUIRE(client);
  // The CURVE handshake fails before any message: nothing is registered and nothing is logged.
  // (Serving longer cannot make this pass wrongly; a broken handshake check registers at once.)
  for (int i = 0; i < 40; ++i) f.coordinator.poll(50ms);
  CHECK_FALSE(client->registered());
  CHECK(f.coordinator.registered_ranks().empty());
  CHECK(f.log.empty());
}

TEST_CASE("a plaintext client is not served", "[control][curve]") {
  Fixture f;
  zmq::context_t context;
  zmq::socket_t dealer(context, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  dealer.connect(f.coordinator.control_endpoint());
  const std::string bytes = encode(RegisterRank{kJob, kSecret, 0, 2, 1, "h", "openmpi"});
  dealer.send(zmq::buffer(bytes), zmq::send_flags::none);
  for (int i = 0; i < 40; ++i) f.coordinator.poll(50ms);
  CHECK(f.coordinator.registered_ranks().empty());
  CHECK(f.log.empty());
}

TEST_CASE("a CLI client holding another key gets no answer", "[control][curve]") {
  Fixture f;
  const auto other = yadokari::protocol::make_curve_keypair();
  std::atomic<bool> done{false};
  std::string error;
  std::thread cli([&] {
    try {
      (void)request_status(f.coordinator.status_endpoint(), kJob,
                           yadokari::protocol::make_credential(kSecret, other.public_key), 1s);
    } catch (const StatusError& e) {
      error = e.what();
    }
    done = true;
  });
  f.serve_until([&] { return done.load(); });
  cli.join();
  CHECK(error == "job yk-test did not answer at " + f.coordinator.status_endpoint());
}

TEST_CASE("a CLI client with a job record that holds no credential is told so", "[control][curve]") {
  std::string error;
  try {
    (void)request_status("tcp://127.0.0.1:1", kJob, "a-bare-secret", 1s);
  } catch (const StatusError& e) {
    error = e.what();
  }
  CHECK(error == "the record of job yk-test holds no valid credential (written by another yadokari?)");
}

TEST_CASE("a client stops even when its coordinator is gone", "[control]") {
  std::unique_ptr<RankControlClient> client;
  {
    Fixture f;
    RankEnvironment env(f.coordinator.control_endpoint(), kJob, f.coordinator.credential());
    client = start_rank(0);
    REQUIRE(f.serve_until([&] { return client->registered(); }));
  }
  client.reset();  // must return; a hang here fails through the test timeout
  SUCCEED();
}

TEST_CASE("what a rank sends just before it ends still reaches the coordinator", "[control]") {
  Fixture f;
  RankEnvironment env(f.coordinator.control_endpoint(), kJob, f.coordinator.credential());
  auto client = start_rank(0);
  REQUIRE(client);
  // A restarted rank with nothing left to do restores and ends at once: its RankRestored was
  // lost with the client's socket, and the front end never printed the restart's timeline.
  client->send(RankRestored{0, 0.25, {}});
  client.reset();
  REQUIRE(f.serve_until([&] { return f.coordinator.progress().restored == 1; }));
  CHECK(f.coordinator.progress().max_restore_seconds == 0.25);
}

TEST_CASE("the front end says why a rank refused to restore, and does not count it restored", "[control]") {
  Fixture f;
  RankEnvironment env(f.coordinator.control_endpoint(), kJob, f.coordinator.credential());
  auto client = start_rank(1);
  REQUIRE(client);
  // The rank aborts right after this: under Hydra its own stderr line can be lost.
  client->send(RankRestored{1, 0.0, "/ckpt/rank-1.img: library libx.so: the checkpoint carried its data"});
  client.reset();
  const std::string expected =
      "yadokari: rank 1 cannot restore: /ckpt/rank-1.img: library libx.so: the checkpoint carried its data";
  REQUIRE(f.serve_until([&] { return std::find(f.log.begin(), f.log.end(), expected) != f.log.end(); }));
  CHECK(f.coordinator.progress().restored == 0);
}

TEST_CASE("a client that never reached a coordinator stops", "[control]") {
  RankEnvironment env("tcp://127.0.0.1:1", kJob, kNoCoordinatorCredential);  // nothing listens on port 1
  auto client = start_rank(0);
  REQUIRE(client);
  CHECK_FALSE(client->registered());
  client.reset();
  SUCCEED();
}

namespace {
std::atomic<int> g_signals_elsewhere{0};
pthread_t g_main_thread;
void count_foreign_thread(int) {
  if (!pthread_equal(pthread_self(), g_main_thread)) ++g_signals_elsewhere;
}
}  // namespace

TEST_CASE("the client thread never runs the application's signal handlers", "[control]") {
  g_main_thread = pthread_self();
  struct sigaction action {
  }, previous{};
  action.sa_handler = count_foreign_thread;
  sigaction(SIGUSR1, &action, &previous);
  Fixture f;
  RankEnvironment env(f.coordinator.control_endpoint(), kJob, f.coordinator.credential());
  auto client = start_rank(0);
  REQUIRE(f.serve_until([&] { return client->registered(); }));
  // While this thread blocks SIGUSR1, a process-directed signal (like a timer's) goes to any
  // thread that does not: there must be none, so it stays pending until we unblock it.
  sigset_t usr1, before;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, &before);
  for (int i = 0; i < 100; ++i) kill(getpid(), SIGUSR1);
  CHECK(f.coordinator.query_all(30s).ranks.size() == 1);  // the client still serves
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  CHECK(g_signals_elsewhere == 0);
  sigaction(SIGUSR1, &previous, nullptr);
}
