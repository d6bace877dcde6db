#pragma once
// Slurm's drain (`scontrol update nodename=N state=drain reason=...`) seen by a job running in the
// allocation: a thread asks scontrol about the allocation's nodes every 5 s, so that the
// front end's loop never waits for Slurm (scontrol may take seconds, and heartbeats are judged in
// about one), and the slurm platform marks the draining ones in its nodes (ClusterNode::draining),
// which the job then moves its ranks off (node_drain.hpp, docs/flows/migrate.md "Draining a node").
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace yadokari::frontend {

class SlurmDrains {
 public:
  // Asks about the nodes of `node_list` (SLURM_JOB_NODELIST) from now on.
  explicit SlurmDrains(std::string node_list);
  ~SlurmDrains();
  SlurmDrains(const SlurmDrains&) = delete;
  SlurmDrains& operator=(const SlurmDrains&) = delete;

  // The draining nodes as Slurm last said, hostname -> drain id (from the node and its reason,
  // which carries the time it was set: a new drain of the node is a new id). Slurm not answering
  // keeps the previous answer.
  std::map<std::string, std::uint64_t> draining() const;

 private:
  void ask_until_stopped();

  std::string node_list_;
  mutable std::mutex mutex_;
  std::condition_variable stop_wanted_;
  bool stop_ = false;
  std::map<std::string, std::uint64_t> draining_;
  std::thread asker_;
};

}  // namespace yadokari::frontend
