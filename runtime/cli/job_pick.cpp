#include "runtime/cli/job_pick.hpp"

#include <vector>

#include "runtime/cli/cli_error.hpp"

namespace yadokari::cli {

control::JobRecord pick_job(const std::string& wanted) {
  std::vector<control::JobRecord> jobs;
  try {
    jobs = control::running_jobs(control::state_dir());
  } catch (const control::RegistryError& e) {
    throw CliError(exit_code::failure, e.what());
  }
  if (!wanted.empty()) {
    for (auto& job : jobs)
      if (job.job_id == wanted) return job;
    throw CliError(exit_code::failure, "no running job with id " + wanted);
  }
  if (jobs.empty()) throw CliError(exit_code::failure, "no running job found");
  if (jobs.size() > 1) {
    std::string ids;
    for (const auto& job : jobs) ids += (ids.empty() ? "" : ", ") + job.job_id;
    throw CliError(exit_code::usage,
                   std::to_string(jobs.size()) + " jobs are running (" + ids + "); pick one with --job");
  }
  return jobs.front();
}

}  // namespace yadokari::cli
