#pragma once
// What to launch: the job, where it runs, its checkpoint and recovery settings. Filled by
// `yadokari run` and `yadokari restart`, read by the supervisor and the platforms.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/frontend/checkpoint_settings.hpp"
#include "runtime/frontend/job_file.hpp"
#include "runtime/frontend/recovery_settings.hpp"
#include "runtime/launch/launcher.hpp"
#include "runtime/launch/mpi_flavour.hpp"

namespace yadokari::frontend {

// Exit code after --stop-after-epoch stopped the job (EX_TEMPFAIL: "try again later", i.e.
// restart).
inline constexpr int kStoppedAfterEpoch = 75;
// Exit code after a signal (SIGUSR1, a first SIGTERM) stopped the job at a committed epoch
// (signal_checkpoint.hpp): like 75, "run again to continue", but told apart from it so that a batch
// script requeues only on the signal. 79: the first code past the sysexits range, which has no
// other meaning for a shell.
inline constexpr int kStoppedOnSignal = 79;

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
  // `restart` of images kept on the nodes (--node-dir, under job_id, the job that wrote them): the
  // first launch restores the epoch the agents choose and stage (node_local_restart.hpp).
  bool restore_node_local = false;
  // The simulated cluster to run on (`yadokari sim`): its hostfile, launch agent and frontend.
  std::optional<std::string> sim;
  // The automatic restart loop (jobs with node agents: --sim, --hosts/--hostfile) and --port.
  RecoverySettings recovery;
  // `run`: written to <checkpoint dir>/job.json once the launcher and shim are found.
  std::optional<JobFile> job_file;
  // `run --fresh`: where the previous run's epochs were moved (previous_run.hpp); removed once
  // this run commits an epoch of its own.
  std::optional<std::filesystem::path> previous_run;
};

}  // namespace yadokari::frontend
