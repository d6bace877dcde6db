#pragma once
// Launching a job and supervising it to its end: shared by `yadokari run` and `yadokari restart`,
// which differ only in how they decide what to launch.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/checkpoint_settings.hpp"
#include "frontend/job_file.hpp"
#include "frontend/recovery_settings.hpp"
#include "launch/launcher.hpp"
#include "launch/mpi_flavour.hpp"

namespace yadokari::frontend {

// Exit code after --stop-after-epoch stopped the job (EX_TEMPFAIL: "try again later", i.e.
// restart).
inline constexpr int kStoppedAfterEpoch = 75;

struct LaunchRequest {
  std::string job_id;             // "yk-" + 8 hex digits
  std::filesystem::path app;      // resolved (what the launcher execs)
  std::string shown_app;          // as the user typed it (status, registry)
  std::vector<std::string> args;  // the application's arguments
  launch::MpiFlavour flavour = launch::MpiFlavour::openmpi;
  int ranks = 1;
  // Where it runs (make_platform, platform.hpp): `sim` if set, else `hosts` if any, else this host.
  std::vector<launch::HostSlots> hosts;  // --hosts/--hostfile (on a simulated cluster: its nodes)
  std::vector<std::string> mpi_args;
  CheckpointSettings checkpoint;  // dir, when set, is absolute and writable
  // More YADOKARI_* variables for the ranks (restart: YADOKARI_RESTORE, ...).
  std::vector<std::pair<std::string, std::string>> rank_env;
  // The simulated cluster to run on (`yadokari sim`): its hostfile, launch agent and frontend.
  std::optional<std::string> sim;
  // The automatic restart loop (jobs with node agents: --sim, --hosts/--hostfile) and --port.
  RecoverySettings recovery;
  // `run`: written to <checkpoint dir>/job.json once the launcher and shim are found.
  std::optional<JobFile> job_file;
};

std::string new_job_id();

// Finds the launcher and the shim, starts the coordinator, publishes the job, runs the launcher
// and serves the control plane until it ends, restarting the job elsewhere when a node is lost
// (the platform says what "elsewhere" is). Returns the application's exit code (128+N if the
// launcher was killed by signal N; kStoppedAfterEpoch after --stop-after-epoch). Throws
// FrontendError when the job cannot start or go on.
int launch_job(const LaunchRequest& request);

}  // namespace yadokari::frontend
