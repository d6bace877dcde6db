#include "runtime/cli/status_command.hpp"

#include <chrono>
#include <iostream>
#include <optional>

#include "runtime/cli/cli_error.hpp"
#include "runtime/cli/job_pick.hpp"
#include "runtime/cli/slurm_view.hpp"
#include "runtime/cli/status_format.hpp"
#include "runtime/control/job_registry.hpp"
#include "runtime/control/status_client.hpp"
#include "runtime/frontend/network_namespace.hpp"

namespace yadokari::cli {
namespace {

// The front end gives the ranks 2 s to answer; allow for that plus a busy machine.
constexpr std::chrono::milliseconds kAnswerTimeout{5000};
// Each scontrol query; its own retries last far longer when the controller is away.
constexpr std::chrono::milliseconds kSlurmTimeout{5000};

}  // namespace

int show_status(const StatusOptions& options) {
  const control::JobRecord job = pick_job(options.job);
  protocol::StatusReport report;
  try {
    // A job on a simulated cluster listens inside the cluster: ask from there.
    report = frontend::in_network_namespace_of_job(
        job, [&] { return control::request_status(job.status_endpoint, job.job_id, job.credential, kAnswerTimeout); });
  } catch (const control::StatusError& e) {
    throw CliError(exit_code::failure, e.what());
  }
  // Slurm's view of a job inside an allocation: asked from here, with this environment (the
  // batch node or a login node of the cluster).
  std::optional<SlurmView> slurm;
  if (!job.slurm_job_id.empty()) slurm = ask_slurm(job.slurm_job_id, job.slurm_node_list, kSlurmTimeout);
  if (options.json) {
    nlohmann::json shown = status_json(report);
    shown["slurm"] = slurm ? slurm_view_json(*slurm) : nlohmann::json();
    std::cout << shown.dump(2) << "\n";
  } else {
    std::cout << status_table(report) << (slurm ? slurm_view_table(*slurm) : std::string());
  }
  return 0;
}

}  // namespace yadokari::cli
