// The slurm platform (platform_slurm.hpp): a job inside a Slurm allocation. The nodes are the
// allocation's (SLURM_JOB_NODELIST, expanded by `scontrol show hostnames`), their slots the tasks
// (SLURM_TASKS_PER_NODE) or, without a task count, the CPUs (SLURM_JOB_CPUS_PER_NODE) Slurm gave
// the job on each. Every node but this one gets its agent as a job step of its own, `srun --overlap
// -N1 -n1 -w NODE`, with its credentials on stdin (node_agents.hpp) like the hosts platform. The
// MPI's launcher sees the allocation and starts its daemons through srun itself (Open MPI's does,
// docs/platform.md §6); SLURM_OVERLAP lets those steps share the nodes' CPUs with the agents'
// steps. No remote shell anywhere. Slurm kills a job when one of its nodes fails unless it was
// submitted with --no-kill (docs/platform.md §6); with it, a lost node's ranks restart on the
// allocation's survivors.
#include "runtime/frontend/platform_slurm.hpp"

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <memory>

#include "runtime/frontend/frontend_error.hpp"
#include "runtime/frontend/node_agents.hpp"
#include "runtime/frontend/platform.hpp"
#include "runtime/frontend/platform_hosts.hpp"
#include "runtime/frontend/slurm_drains.hpp"
#include "runtime/launch/scontrol.hpp"

namespace yadokari::frontend {

std::vector<int> parse_slurm_counts(std::string_view text) {
  const auto bad = [&] {
    return FrontendError(ErrorKind::usage,
                         "cannot read Slurm's per-node count '" + std::string(text) + "' (expected e.g. 2(x3),1)");
  };
  const auto number = [&](std::string_view digits) {
    int value = 0;
    const auto [rest, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || error != std::errc{} || rest != digits.data() + digits.size() || value < 1) throw bad();
    return value;
  };
  std::vector<int> counts;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string_view entry = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (comma != std::string_view::npos && rest.empty()) throw bad();
    int repeat = 1;
    if (const auto open = entry.find("(x"); open != std::string_view::npos) {
      if (entry.back() != ')') throw bad();
      repeat = number(entry.substr(open + 2, entry.size() - open - 3));
      entry = entry.substr(0, open);
    }
    const int count = number(entry);
    counts.insert(counts.end(), static_cast<std::size_t>(repeat), count);
  }
  if (counts.empty()) throw bad();
  return counts;
}

std::vector<launch::HostSlots> slurm_hosts(const std::vector<std::string>& hostnames, const std::vector<int>& counts) {
  if (hostnames.size() != counts.size())
    throw FrontendError(ErrorKind::usage, "the Slurm allocation names " + std::to_string(hostnames.size()) +
                                              " nodes but gives counts for " + std::to_string(counts.size()));
  std::vector<launch::HostSlots> hosts;
  for (std::size_t i = 0; i < hostnames.size(); ++i) hosts.push_back(launch::HostSlots{hostnames[i], counts[i]});
  return hosts;
}

bool in_slurm_allocation() {
  const char* job = std::getenv("SLURM_JOB_ID");
  return job && *job;
}

namespace {

// scontrol waits a minute for a missing configuration (launch/scontrol.hpp); `show hostnames` is
// local work that takes milliseconds.
constexpr std::chrono::milliseconds kScontrolLimit{10000};

// The words of `text`, split at blanks.
std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : text + "\n") {
    if (c == ' ' || c == '\n' || c == '\t') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  return words;
}

std::string required_variable(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value)
    throw FrontendError(ErrorKind::usage, std::string("inside a Slurm allocation but ") + name + " is not set");
  return value;
}

// The allocation's hosts and slots, from the variables Slurm sets in the job's environment.
std::vector<launch::HostSlots> allocation_hosts() {
  const std::string node_list = required_variable("SLURM_JOB_NODELIST");
  std::vector<std::string> hostnames;
  try {
    hostnames = words_of(launch::run_scontrol({"show", "hostnames", node_list}, kScontrolLimit));
  } catch (const launch::ScontrolError& e) {
    throw FrontendError(ErrorKind::failure,
                        "cannot read the Slurm allocation's nodes (" + node_list + "): " + std::string(e.what()));
  }
  // Tasks when the job asked for a number of them (-n, --ntasks-per-node), else its CPUs.
  const char* tasks = std::getenv("SLURM_TASKS_PER_NODE");
  const bool tasks_asked = std::getenv("SLURM_NTASKS") || std::getenv("SLURM_NTASKS_PER_NODE");
  const std::string counts =
      tasks && *tasks && tasks_asked ? std::string(tasks) : required_variable("SLURM_JOB_CPUS_PER_NODE");
  return slurm_hosts(hostnames, parse_slurm_counts(counts));
}

constexpr std::chrono::milliseconds kAgentConnectTimeout{30000};  // srun's step creation can take seconds

class SlurmPlatform : public Platform {
 public:
  explicit SlurmPlatform(const LaunchRequest& request)
      : hosts_(allocation_hosts()),
        ranks_(request.ranks),
        bind_address_(request.recovery.bind_address),
        drains_(required_variable("SLURM_JOB_NODELIST")) {}

  std::string bind_host() const override { return coordinator_address(hosts_, bind_address_); }
  std::string slurm_job_id() const override { return required_variable("SLURM_JOB_ID"); }
  std::string slurm_node_list() const override { return required_variable("SLURM_JOB_NODELIST"); }

  bool has_agents() const override { return true; }
  std::vector<ClusterNode> nodes() const override { return host_nodes(hosts_); }
  AgentLaunch agent_launch(const ClusterNode& node) const override {
    if (is_this_host(node.id)) return AgentLaunch{node.id, {}, false};
    return AgentLaunch{node.id, {"srun", "--overlap", "-N1", "-n1", "-w", node.id}, true};
  }
  std::chrono::milliseconds agent_connect_timeout() const override { return kAgentConnectTimeout; }
  // The allocation's nodes as the coordinator knows them: lost ones are dead, joined ones
  // (`yadokari join`) are there too; those Slurm drains are draining.
  std::vector<ClusterNode> nodes_now(const control::Coordinator& coordinator) const override {
    std::vector<ClusterNode> nodes = host_nodes_now(coordinator);
    const auto draining = drains_.draining();
    for (auto& node : nodes)
      if (const auto drain = draining.find(node.hostname); drain != draining.end()) {
        node.draining = true;
        node.drain_id = drain->second;
      }
    return nodes;
  }

  std::vector<launch::HostSlots> first_hosts() const override { return hosts_the_ranks_fill(hosts_, ranks_); }
  // The launcher's own srun steps overlap the agents' (each of which holds a CPU otherwise).
  std::vector<std::pair<std::string, std::string>> launcher_environment() const override {
    return {{"SLURM_OVERLAP", "1"}};
  }

 private:
  std::vector<launch::HostSlots> hosts_;
  int ranks_ = 0;
  std::string bind_address_;  // --bind-address; empty: chosen by coordinator_address()
  SlurmDrains drains_;
};

}  // namespace

std::unique_ptr<Platform> make_slurm_platform(const LaunchRequest& request) {
  return std::make_unique<SlurmPlatform>(request);
}

}  // namespace yadokari::frontend
