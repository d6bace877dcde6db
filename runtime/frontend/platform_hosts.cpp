#include "runtime/frontend/platform_hosts.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "runtime/frontend/frontend_error.hpp"
#include "runtime/frontend/node_agents.hpp"
#include "runtime/frontend/platform.hpp"
#include "common/parameters.hpp"

namespace yadokari::frontend {

std::vector<ClusterNode> host_nodes(const std::vector<launch::HostSlots>& hosts) {
  std::vector<ClusterNode> nodes;
  for (const auto& host : hosts) nodes.push_back(ClusterNode{host.host, host.host, host.slots, true, 0, false, 0});
  return nodes;
}

std::vector<ClusterNode> host_nodes_now(const control::Coordinator& coordinator) {
  std::vector<ClusterNode> nodes;
  for (const auto& node : coordinator.nodes())
    nodes.push_back(
        ClusterNode{node.node, node.node, node.slots, node.state == "alive" || node.state == "suspect", 0, false, 0});
  return nodes;
}

std::string coordinator_address(const std::vector<launch::HostSlots>& hosts, const std::string& wanted) {
  if (!wanted.empty()) return wanted;
  bool all_here = true;
  for (const auto& host : hosts) all_here = all_here && is_this_host(host.host);
  if (all_here) return "127.0.0.1";
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  const std::string advice = "; give --bind-address with an address of this host that the other hosts can reach";
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  if (getaddrinfo(name, nullptr, &hints, &found) != 0 || !found)
    throw FrontendError(ErrorKind::usage, std::string("this host's name ") + name + " does not resolve" + advice);
  char text[INET_ADDRSTRLEN] = {};
  const auto* address = reinterpret_cast<const sockaddr_in*>(found->ai_addr);
  inet_ntop(AF_INET, &address->sin_addr, text, sizeof text);
  freeaddrinfo(found);
  const std::string result = text;
  if (result.rfind("127.", 0) == 0)
    throw FrontendError(ErrorKind::usage, std::string("this host's name ") + name + " resolves to " + result +
                                              ", which the other hosts cannot reach" + advice);
  return result;
}

AgentLaunch host_agent_launch(const std::string& host) {
  if (is_this_host(host)) return AgentLaunch{host, {}, false};
  const char* configured = std::getenv(yadokari::parameters::kRsh);
  const char* slurm_job = std::getenv("SLURM_JOB_ID");
  // Inside a Slurm allocation its own launcher reaches the nodes (and no ssh may be allowed).
  const char* fallback =
      slurm_job && *slurm_job ? "srun --nodes=1 --ntasks=1 --overlap --nodelist" : "ssh -o BatchMode=yes";
  std::vector<std::string> prefix;
  try {
    prefix = launch::split_shell_words(configured && *configured ? configured : fallback);
  } catch (const launch::LaunchError& e) {
    throw FrontendError(ErrorKind::usage, std::string("YADOKARI_RSH: ") + e.what());
  }
  if (prefix.empty()) throw FrontendError(ErrorKind::usage, "YADOKARI_RSH is empty");
  prefix.push_back(host);
  return AgentLaunch{host, prefix, true};
}

namespace {

constexpr std::chrono::milliseconds kAgentConnectTimeout{30000};  // ssh logins can be slow

class HostsPlatform : public Platform {
 public:
  explicit HostsPlatform(const LaunchRequest& request)
      : hosts_(request.hosts), ranks_(request.ranks), bind_address_(request.recovery.bind_address) {}

  std::string bind_host() const override { return coordinator_address(hosts_, bind_address_); }

  bool has_agents() const override { return true; }
  std::vector<ClusterNode> nodes() const override { return host_nodes(hosts_); }
  AgentLaunch agent_launch(const ClusterNode& node) const override { return host_agent_launch(node.id); }
  std::chrono::milliseconds agent_connect_timeout() const override { return kAgentConnectTimeout; }
  // The hosts it started with and those that joined (`yadokari join`), as the coordinator knows them.
  std::vector<ClusterNode> nodes_now(const control::Coordinator& coordinator) const override {
    return host_nodes_now(coordinator);
  }

  std::vector<launch::HostSlots> first_hosts() const override { return hosts_the_ranks_fill(hosts_, ranks_); }

 private:
  std::vector<launch::HostSlots> hosts_;
  int ranks_ = 0;
  std::string bind_address_;  // --bind-address; empty: chosen by coordinator_address()
};

}  // namespace

std::unique_ptr<Platform> make_hosts_platform(const LaunchRequest& request) {
  return std::make_unique<HostsPlatform>(request);
}

}  // namespace yadokari::frontend
