#include "runtime/sim/network.hpp"

#include <utility>
#include <vector>

#include "runtime/sim/command.hpp"
#include "runtime/sim/link_shape.hpp"
#include "runtime/sim/sim_error.hpp"

namespace yadokari::sim {

void create_switch(const Node& switch_holder) {
  run_checked(in_netns(switch_holder.pid, {"ip", "link", "set", "lo", "up"}));
  run_checked(in_netns(switch_holder.pid, {"ip", "link", "add", "br0", "type", "bridge"}));
  run_checked(in_netns(switch_holder.pid, {"ip", "link", "set", "br0", "up"}));
}

void plug_node(const Node& switch_holder, const Node& node) {
  // The peer is created directly in the node's namespace: no name ever appears in the root one.
  run_checked(in_netns(switch_holder.pid, {"ip", "link", "add", node.id, "type", "veth", "peer", "name", "eth0",
                                           "netns", std::to_string(node.pid)}));
  run_checked(in_netns(switch_holder.pid, {"ip", "link", "set", node.id, "master", "br0", "up"}));
  run_checked(in_netns(node.pid, {"ip", "link", "set", "lo", "up"}));
  run_checked(in_netns(node.pid, {"ip", "address", "add", node.address + "/24", "dev", "eth0"}));
  run_checked(in_netns(node.pid, {"ip", "link", "set", "eth0", "up"}));
}

void shape_link(const Node& node, const std::string& link) {
  std::vector<std::string> argv{"tc", "qdisc", "add", "dev", "eth0", "root"};
  for (auto& arg : link_qdisc_args(link)) argv.push_back(std::move(arg));
  const CommandResult result = run_command(in_netns(node.pid, argv));
  if (result.exit_code == 0) return;
  std::string why = result.output;
  for (auto& c : why) {
    if (c == '\n') c = ' ';
  }
  while (!why.empty() && why.back() == ' ') why.pop_back();
  if (why.find("qdisc kind is unknown") != std::string::npos)
    why += " (this kernel has no sch_netem; 'rate R' alone works without it)";
  throw SimError("--link '" + link + "' was refused by tc: " + why, 2);
}

}  // namespace yadokari::sim
