#include "runtime/frontend/slurm_drains.hpp"

#include <chrono>
#include <functional>

#include "runtime/launch/scontrol.hpp"
#include "runtime/launch/scontrol_records.hpp"

namespace yadokari::frontend {
namespace {

// Every few seconds: a drain is planned maintenance, not a failure, and slurmctld serves every job.
constexpr std::chrono::milliseconds kAskInterval{5000};
// Also how long the front end may wait for a question under way when the job ends.
constexpr std::chrono::milliseconds kAnswerLimit{5000};

}  // namespace

SlurmDrains::SlurmDrains(std::string node_list)
    : node_list_(std::move(node_list)), asker_([this] { ask_until_stopped(); }) {}

SlurmDrains::~SlurmDrains() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stop_wanted_.notify_all();
  asker_.join();
}

std::map<std::string, std::uint64_t> SlurmDrains::draining() const {
  std::lock_guard lock(mutex_);
  return draining_;
}

void SlurmDrains::ask_until_stopped() {
  for (;;) {
    std::map<std::string, std::uint64_t> now;
    bool answered = false;
    try {
      for (const auto& node :
           launch::read_slurm_nodes(launch::run_scontrol({"show", "node", "-o", node_list_}, kAnswerLimit)))
        if (node.draining()) now[node.node] = std::hash<std::string>{}(node.node + " " + node.reason) | 1;
      answered = true;
    } catch (const launch::ScontrolError&) {
      // Slurm busy or away: the previous answer stands, and the next ask may do better.
    }
    std::unique_lock lock(mutex_);
    if (answered) draining_ = std::move(now);
    if (stop_wanted_.wait_for(lock, kAskInterval, [this] { return stop_; })) return;
  }
}

}  // namespace yadokari::frontend
