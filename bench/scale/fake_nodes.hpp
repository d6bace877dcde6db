#pragma once
// A worker process of the scale harness: the fake node agents and fake ranks of a slice of the
// nodes, each with its own DEALER socket (CURVE, like the real ones) to the real coordinator. Fake
// ranks answer the checkpoint protocol at once (parked at every round, a tiny image at GO); fake
// agents say hello and send heartbeats.
//
// Commands, one line each on `commands`: "connect <endpoint> <job id> <credential>",
// "lose <node index>" (that agent stops its heartbeats), "quit". Answers on `answers`: "ready"
// once every rank and agent of the slice was accepted, and at quit "counts <messages to the front
// end> <messages from it> <heartbeats sent>".
#include "bench/scale/scale_options.hpp"

namespace yadokari::bench::scale {

struct NodeSlice {
  int first = 0;  // node indices [first, end)
  int end = 0;
};

// Runs until "quit" or until `commands` closes; returns the process's exit code.
int run_fake_nodes(const ScaleOptions& options, NodeSlice slice, int commands, int answers);

// "n<index+1>", and the host name its ranks and agent report.
std::string node_id(int index);
std::string node_hostname(int index);

}  // namespace yadokari::bench::scale
