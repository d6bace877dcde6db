#pragma once
// The cluster's network, built with iproute2 inside the holders' namespaces only (the root
// namespace gets no interface): bridge `br0` in the switch namespace, one veth per node
// (`eth0` in the node, `<id>` on the bridge), addresses from 10.213.0.0/24, loopback up.
#include <string>

#include "runtime/sim/cluster.hpp"

namespace yadokari::sim {

// br0 up in the switch namespace.
void create_switch(const Node& switch_holder);

// veth pair switch:<node.id> <-> node:eth0, node.address/24 on eth0, eth0 and lo up, port up.
void plug_node(const Node& switch_holder, const Node& node);

// `tc qdisc add dev eth0 root <link_qdisc_args(link)>` inside the node (tbf for a plain rate,
// netem otherwise); throws SimError with tc's complaint.
void shape_link(const Node& node, const std::string& link);

}  // namespace yadokari::sim
