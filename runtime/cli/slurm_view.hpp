#pragma once
// Slurm's view of a job that runs inside a Slurm allocation, for `yadokari status`: the Slurm job
// id and state, the allocation's nodes and the state Slurm gives each (a lost node goes DOWN there
// only after Slurm's own timeout, later than yadokari sees it, and then leaves the job's node list;
// docs/platform.md §6), so the nodes shown are those the job started with. Asked with
// `scontrol` within a time limit; when Slurm does not answer the view says why instead.
#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/launch/scontrol_records.hpp"

namespace yadokari::cli {

using launch::read_slurm_nodes;
using launch::scontrol_field;
using launch::SlurmNodeState;

struct SlurmView {
  std::string job_id;
  std::string job_state;          // RUNNING, ...
  std::string node_list;          // the allocation now, as Slurm writes it (ykx-n[1,3])
  std::string started_node_list;  // the allocation when the front end started (ykx-n[1-3])
  std::vector<SlurmNodeState> nodes;
  std::string unreachable;  // not empty: Slurm could not be asked, and why
};

class SlurmViewError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Fills job_state and node_list from `scontrol show job -o ID`. SlurmViewError when the output
// is not that job's line.
void read_slurm_job(std::string_view text, SlurmView& view);

// Asks Slurm (scontrol, in PATH, with this environment) about `job_id` and the nodes of
// `started_node_list` (the job's current nodes when empty), each query limited to `limit`; failures
// end up in SlurmView::unreachable.
SlurmView ask_slurm(const std::string& job_id, const std::string& started_node_list, std::chrono::milliseconds limit);

std::string slurm_view_table(const SlurmView& view);
nlohmann::json slurm_view_json(const SlurmView& view);

}  // namespace yadokari::cli
