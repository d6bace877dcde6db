#include "cli/host_placement.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "cli/cli_error.hpp"
#include "cli/node_agents.hpp"
#include "cli/option_source.hpp"

namespace yadokari::cli {

std::vector<ClusterNode> host_nodes(const std::vector<launch::HostSlots>& hosts) {
  std::vector<ClusterNode> nodes;
  for (const auto& host : hosts) nodes.push_back(ClusterNode{host.host, host.host, host.slots, true, 0});
  return nodes;
}

std::vector<ClusterNode> host_nodes_now(const control::Coordinator& coordinator) {
  std::vector<ClusterNode> nodes;
  for (const auto& node : coordinator.nodes())
    nodes.push_back(ClusterNode{node.node, node.node, node.slots, node.state == "alive" || node.state == "suspect", 0});
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
    throw CliError(exit_code::usage, std::string("this host's name ") + name + " does not resolve" + advice);
  char text[INET_ADDRSTRLEN] = {};
  const auto* address = reinterpret_cast<const sockaddr_in*>(found->ai_addr);
  inet_ntop(AF_INET, &address->sin_addr, text, sizeof text);
  freeaddrinfo(found);
  const std::string result = text;
  if (result.rfind("127.", 0) == 0)
    throw CliError(exit_code::usage, std::string("this host's name ") + name + " resolves to " + result +
                                         ", which the other hosts cannot reach" + advice);
  return result;
}

std::vector<launch::HostSlots> read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CliError(exit_code::usage, "cannot read --hostfile " + path);
  std::vector<launch::HostSlots> hosts;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string host, extra, more;
    if (!(words >> host)) continue;
    words >> extra >> more;
    int slots = 1;
    bool good = more.empty();
    if (const auto colon = host.find(':'); colon != std::string::npos) {
      const auto count = whole_number<int>(host.substr(colon + 1));
      good = good && extra.empty() && count && *count >= 1;
      slots = count.value_or(0);
      host.erase(colon);
    } else if (!extra.empty()) {
      const auto count = extra.rfind("slots=", 0) == 0 ? whole_number<int>(extra.substr(6)) : std::nullopt;
      good = good && count && *count >= 1;
      slots = count.value_or(0);
    }
    if (!good || host.empty())
      throw CliError(exit_code::usage, path + ":" + std::to_string(number) + ": expected 'host', 'host slots=N' or 'host:N', not '" +
                                           line + "'");
    hosts.push_back(launch::HostSlots{host, slots});
  }
  if (hosts.empty()) throw CliError(exit_code::usage, "--hostfile " + path + " lists no host");
  return hosts;
}

}  // namespace yadokari::cli
