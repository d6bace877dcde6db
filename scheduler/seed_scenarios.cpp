#include "scheduler/seed_scenarios.hpp"

namespace yadokari::scheduler {

Scenario seed000_per_process_scenario(int host_slots, int remote_slots, int lost_slots) {
  Scenario s;
  s.job.world_size = 7;
  // N-queen with a fixed task share per worker: every rank computes about the same.
  s.job.compute_seconds.assign(7, 163.0);
  s.nodes = {{"host", host_slots, true, std::nullopt},
             {"remote-a", remote_slots, true, std::nullopt},
             {"remote-b", lost_slots, false, std::nullopt}};
  s.current = {"host", "host", "remote-a", "remote-a", "remote-b", "remote-b", "remote-b"};
  s.lost = "remote-b";
  s.targets = {"host", "remote-a"};
  return s;
}

std::string split_of(const Scenario& scenario, const Placement& placement) {
  std::string text;
  for (const auto& target : scenario.targets) {
    int count = 0;
    for (std::size_t r = 0; r < scenario.current.size(); ++r)
      if (scenario.current[r] == scenario.lost && placement.node_of_rank[r] == target) ++count;
    text += (text.empty() ? "" : ":") + std::to_string(count);
  }
  return text;
}

}  // namespace yadokari::scheduler
