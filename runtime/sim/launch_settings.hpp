#pragma once
// How to launch an MPI job on a simulated cluster: what `yadokari run --sim NAME` needs.
// The launcher (mpirun.openmpi / mpiexec.mpich) must run inside the frontend's namespaces
// (`frontend_prefix` + launcher + `launcher_args` + ...) with `environment` added to its own:
// the nodes' addresses exist only inside the cluster, and Hydra's proxies connect back to the
// launcher's hostname, which only the cluster's /etc/hosts resolves.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "runtime/launch/mpi_flavour.hpp"
#include "runtime/sim/cluster.hpp"

namespace yadokari::sim {

struct LaunchSettings {
  // nsenter -t <frontend holder> -n -u -i -m --wd=. --  (keeps the caller's directory)   (prepend to the launcher's argv)
  std::vector<std::string> frontend_prefix;
  // Open MPI: --hostfile <dir>/hostfile.openmpi --bind-to none
  // MPICH:    -launcher ssh -launcher-exec <dir>/agent -f <dir>/hostfile.mpich
  std::vector<std::string> launcher_args;
  // Open MPI: OMPI_MCA_plm_rsh_agent, plm_rsh_no_tree_spawn, oob/btl_tcp_if_include (and, with a
  // job directory, orte_tmpdir_base and btl_vader_backing_directory inside it); MPICH: none.
  std::vector<std::pair<std::string, std::string>> environment;
};

// job_dir: optional directory for Open MPI's session directories and shared-memory backing
// files (must exist and be visible from the nodes; the nodes share the host's file system).
LaunchSettings launch_settings(const Cluster& cluster, launch::MpiFlavour flavour,
                               const std::filesystem::path& job_dir = {});

}  // namespace yadokari::sim
