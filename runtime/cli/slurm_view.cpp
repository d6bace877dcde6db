#include "runtime/cli/slurm_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/launch/scontrol.hpp"

namespace yadokari::cli {
namespace {

// The output of `scontrol ARGS...`, or SlurmViewError with why there is none.
std::string scontrol(const std::vector<std::string>& args, std::chrono::milliseconds limit) {
  try {
    return launch::run_scontrol(args, limit);
  } catch (const launch::ScontrolError& e) {
    throw SlurmViewError(e.what());
  }
}

}  // namespace

void read_slurm_job(std::string_view text, SlurmView& view) {
  const std::string_view line = text.substr(0, text.find('\n'));
  if (scontrol_field(line, "JobId") != view.job_id)
    throw SlurmViewError("scontrol did not describe job " + view.job_id + ": '" + std::string(line.substr(0, 80)) +
                         "'");
  view.job_state = scontrol_field(line, "JobState");
  view.node_list = scontrol_field(line, "NodeList");
  if (view.job_state.empty()) throw SlurmViewError("scontrol gave no JobState for job " + view.job_id);
}

SlurmView ask_slurm(const std::string& job_id, const std::string& started_node_list, std::chrono::milliseconds limit) {
  SlurmView view;
  view.job_id = job_id;
  view.started_node_list = started_node_list;
  try {
    read_slurm_job(scontrol({"show", "job", "-o", job_id}, limit), view);
    // A pending (requeued) job has no nodes: "(null)".
    const std::string nodes = !started_node_list.empty() ? started_node_list : view.node_list;
    if (!nodes.empty() && nodes != "(null)")
      view.nodes = read_slurm_nodes(scontrol({"show", "node", "-o", nodes}, limit));
  } catch (const SlurmViewError& e) {
    view.unreachable = e.what();
  } catch (const launch::ScontrolError& e) {  // a node line it cannot read
    view.unreachable = e.what();
  }
  return view;
}

std::string slurm_view_table(const SlurmView& view) {
  if (!view.unreachable.empty())
    return fmt::format("slurm job {}: Slurm not reachable: {}\n", view.job_id, view.unreachable);
  std::string out = fmt::format("slurm job {}  {}  nodes {}", view.job_id, view.job_state, view.node_list);
  if (!view.started_node_list.empty() && view.started_node_list != view.node_list)
    out += fmt::format("  (started on {})", view.started_node_list);
  out += "\n";
  std::size_t width = 10;
  for (const auto& node : view.nodes) width = std::max(width, node.node.size());
  if (!view.nodes.empty()) out += fmt::format("{:<{}}  {}\n", "slurm node", width, "state");
  for (const auto& node : view.nodes) out += fmt::format("{:<{}}  {}\n", node.node, width, node.state);
  return out;
}

nlohmann::json slurm_view_json(const SlurmView& view) {
  if (!view.unreachable.empty()) return {{"job_id", view.job_id}, {"unreachable", view.unreachable}};
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& node : view.nodes) nodes.push_back({{"node", node.node}, {"state", node.state}});
  return {{"job_id", view.job_id},
          {"state", view.job_state},
          {"node_list", view.node_list},
          {"started_node_list", view.started_node_list},
          {"nodes", nodes}};
}

}  // namespace yadokari::cli
