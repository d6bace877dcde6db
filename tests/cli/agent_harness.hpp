#pragma once
// A coordinator with node agents on threads, in one test process over real ZeroMQ TCP on
// loopback (test_node_agents.cpp, test_node_images.cpp, test_rank_relay.cpp).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <string>
#include <vector>

#include "runtime/agent/node_agent.hpp"
#include "runtime/control/coordinator.hpp"

#include "protocol/credential.hpp"

namespace agent_harness {

using namespace std::chrono_literals;
inline constexpr const char* kJob = "yk-agents";
inline constexpr const char* kSecret = "agent-secret";

// A coordinator expecting nodes n1 and n2 (2 slots each), heartbeats every 50 ms. A node is lost
// after `misses` silent intervals: 3 where a test is about losses, else so many that a loaded
// machine (ctest -j2 beside MPI jobs) cannot starve an agent thread into a loss the test did not
// ask for.
struct Cluster {
  static constexpr int kLossesNotWanted = 200;
  std::vector<std::string> log;
  yadokari::control::Coordinator coordinator;

  // `job`: a job id of its own where agents of concurrent tests must not meet (their relays).
  explicit Cluster(int misses = kLossesNotWanted, int world_size = 1, const std::string& job = kJob)
      : coordinator(config(misses, world_size, job)) {}

  yadokari::control::CoordinatorConfig config(int misses, int world_size, const std::string& job) {
    yadokari::control::CoordinatorConfig config;
    config.job_id = job;
    config.secret = kSecret;
    config.app = "./app";
    config.flavour = "openmpi";
    config.world_size = world_size;
    config.log = [this](const std::string& line) { log.push_back(line); };
    yadokari::control::CoordinatorConfig::Membership membership;
    membership.heartbeat = {50ms, misses};
    membership.slots = {{"n1", 2}, {"n2", 2}};
    config.membership = membership;
    return config;
  }

  // The cap only turns a hang into a failure; it is not a timing expectation.
  bool serve_until(const std::function<bool()>& done) {
    for (int i = 0; i < 1200; ++i) {
      if (done()) return true;
      coordinator.poll(20ms);
    }
    return done();
  }

  const std::string& credential() const { return coordinator.credential(); }

  // The coordinator's key with another secret: an agent that knows the endpoint and the key only.
  std::string credential_with_secret(const std::string& secret) const {
    return yadokari::protocol::make_credential(
        secret, yadokari::protocol::parse_credential(coordinator.credential())->coordinator_key);
  }

  bool logged(const std::string& text) const {
    for (const auto& line : log)
      if (line.find(text) != std::string::npos) return true;
    return false;
  }
};

// An agent on a thread; the destructor stops it.
struct AgentThread {
  std::atomic<bool> stop{false};
  std::future<int> result;

  // `credential`: the coordinator's (Cluster::credential), or one made to be refused.
  AgentThread(const std::string& endpoint, const std::string& node, const std::string& credential, int join_slots = 0,
              const std::filesystem::path& node_dir = {}, std::chrono::milliseconds coordinator_lost_after = 60s,
              bool relay_ranks = true, const std::string& job = kJob, bool image_port = true) {
    yadokari::agent::AgentOptions options;
    options.coordinator = endpoint;
    options.node = node;
    options.job_id = job;
    options.credential = credential;
    options.join_slots = join_slots;
    options.node_dir = node_dir;
    options.hello_timeout = 60s;
    options.coordinator_lost_after = coordinator_lost_after;
    options.relay_ranks = relay_ranks;
    options.image_port = image_port;
    options.stop_requested = [this] { return stop.load(); };
    result = std::async(std::launch::async, [options] { return yadokari::agent::run_node_agent(options); });
  }
  ~AgentThread() {
    stop = true;
    if (result.valid()) result.wait();
  }
  bool finished() const { return result.wait_for(0s) == std::future_status::ready; }
};

inline std::string state_of(const yadokari::control::Coordinator& coordinator, const std::string& node) {
  for (const auto& status : coordinator.nodes())
    if (status.node == node) return status.state;
  return "absent";
}

}  // namespace agent_harness
