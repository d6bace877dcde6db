#include "frontend/host_placement.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <unistd.h>


#include "frontend/frontend_error.hpp"
#include "frontend/node_agents.hpp"

namespace yadokari::frontend {

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

}  // namespace yadokari::frontend
