#pragma once
// What an MPI launcher leaves on disk when it is killed rather than allowed to finish. Open MPI's
// mpirun and orted keep a session directory per job, <base>/ompi.<host>.<uid>/pid.<pid>, which
// holds the shared-memory segments of the ranks on that host (megabytes per job); killed with
// SIGKILL (how yadokari ends a job for a restart) they cannot remove it, and every restart would
// leave one more behind. MPICH's Hydra keeps nothing there.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace yadokari::launch {

// Open MPI 4's base directory for session directories, from the environment the launcher
// inherits: OMPI_MCA_orte_tmpdir_base, else TMPDIR, TEMP, TMP, else /tmp.
std::filesystem::path open_mpi_session_base();

// Removes pid.<pid> for each of `pids` (processes of a launcher's tree, all already dead) from
// every top directory ompi.*.<uid> of this user under the base. Returns how many it removed.
// Only dead processes' pids may be given: a live launcher's directory is in use.
int remove_open_mpi_session_dirs(const std::vector<pid_t>& pids);

// Removes the top directories ompi.<hostname>.* of a host that is gone for good (a simulated
// node that was killed or torn down: a real node's /tmp goes with it). Returns how many.
int remove_open_mpi_host_dirs(const std::string& hostname);

}  // namespace yadokari::launch
