#pragma once
// Ending a whole job on purpose (--stop-after-epoch): the launcher and every rank, with no rank
// process left behind.
#include <sys/types.h>

#include <vector>

namespace yadokari::cli {

// SIGTERM to the launcher (Open MPI's mpirun and Hydra's mpiexec both take their ranks down on
// it), up to 10 s for it to exit, then SIGKILL; then SIGKILL to any of `local_rank_pids` (ranks
// registered from this host) still alive, and up to 5 s for them to be gone. Returns once the
// launcher has been reaped.
void stop_whole_job(pid_t launcher, const std::vector<pid_t>& local_rank_pids);

}  // namespace yadokari::cli
