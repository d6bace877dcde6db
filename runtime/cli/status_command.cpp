#include "cli/status_command.hpp"

#include <chrono>
#include <iostream>

#include "cli/cli_error.hpp"
#include "cli/job_pick.hpp"
#include "cli/status_format.hpp"
#include "control/job_registry.hpp"
#include "control/status_client.hpp"
#include "frontend/network_namespace.hpp"

namespace yadokari::cli {
namespace {

// The front end gives the ranks 2 s to answer; allow for that plus a busy machine.
constexpr std::chrono::milliseconds kAnswerTimeout{5000};

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
  std::cout << (options.json ? status_json(report).dump(2) + "\n" : status_table(report));
  return 0;
}

}  // namespace yadokari::cli
