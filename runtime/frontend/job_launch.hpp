#pragma once
// Launching a job and supervising it to its end: shared by `yadokari run` and `yadokari restart`,
// which differ only in how they decide what to launch.
#include <string>

#include "runtime/frontend/launch_request.hpp"

namespace yadokari::frontend {

std::string new_job_id();

// Finds the launcher and the shim, starts the coordinator, publishes the job, runs the launcher
// and serves the control plane until it ends, restarting the job elsewhere when a node is lost
// (the platform says what "elsewhere" is). Returns the application's exit code (128+N if the
// launcher was killed by signal N; kStoppedAfterEpoch after --stop-after-epoch). Throws
// FrontendError when the job cannot start or go on.
int launch_job(const LaunchRequest& request);

}  // namespace yadokari::frontend
