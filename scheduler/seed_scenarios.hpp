#pragma once
// The seeds' experiments as scheduler inputs, for tests, `yadokari plan`-style demos and benches.
#include <string>
#include <vector>

#include "scheduler/placement.hpp"

namespace yadokari::scheduler {

struct Scenario {
  Job job;
  std::vector<Node> nodes;
  CurrentPlacement current;
  Options options;
  std::string lost;                  // the node that left
  std::vector<std::string> targets;  // the surviving nodes, in the order a split is written
};

// Seed 000 §5.4 (per-process re-placement): 7 ranks placed (2,2,3) on nodes "host", "remote-a",
// "remote-b" (ranks 0-1, 2-3, 4-6); remote-b leaves. The thesis's PCs had 4 cores, and on the host
// `orterun` kept one busy, so the defaults are 3, 4, 4 usable slots. No traffic; equal compute.
Scenario seed000_per_process_scenario(int host_slots = 3, int remote_slots = 4, int lost_slots = 4);

// How many of the lost node's ranks each target received, in `targets` order: "0:3", "1:2".
std::string split_of(const Scenario& scenario, const Placement& placement);

}  // namespace yadokari::scheduler
