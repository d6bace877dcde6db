#pragma once
// Which running job a CLI command talks to: the one named by --job, else the only one.
#include <string>

#include "runtime/control/job_registry.hpp"

namespace yadokari::cli {

// Throws CliError: "no running job found", "no running job with id X" (1),
// "N jobs are running (A, B); pick one with --job" (2).
control::JobRecord pick_job(const std::string& wanted);

}  // namespace yadokari::cli
