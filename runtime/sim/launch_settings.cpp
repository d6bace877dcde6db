#include "runtime/sim/launch_settings.hpp"

#include <unistd.h>

namespace yadokari::sim {

LaunchSettings launch_settings(const Cluster& cluster, launch::MpiFlavour flavour,
                               const std::filesystem::path& job_dir) {
  LaunchSettings settings;
  // --wd=. : nsenter opens the caller's directory before it enters the mount namespace.
  settings.frontend_prefix = {"nsenter", "-t", std::to_string(cluster.frontend.pid), "-n", "-u", "-i", "-m",
                              "--wd=.",  "--"};
  if (flavour == launch::MpiFlavour::openmpi) {
    settings.launcher_args = {"--hostfile", cluster.hostfile_openmpi().string(), "--bind-to", "none"};
    settings.environment = {{"OMPI_MCA_plm_rsh_agent", cluster.agent().string()},
                            {"OMPI_MCA_plm_rsh_no_tree_spawn", "1"},
                            {"OMPI_MCA_oob_tcp_if_include", kSubnet},
                            {"OMPI_MCA_btl_tcp_if_include", kSubnet}};
    if (!job_dir.empty()) {
      settings.environment.emplace_back("OMPI_MCA_orte_tmpdir_base", job_dir.string());
      settings.environment.emplace_back("OMPI_MCA_btl_vader_backing_directory", job_dir.string());
    }
    if (geteuid() == 0) {
      settings.environment.emplace_back("OMPI_ALLOW_RUN_AS_ROOT", "1");
      settings.environment.emplace_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    }
  } else {
    settings.launcher_args = {
        "-launcher", "ssh", "-launcher-exec", cluster.agent().string(), "-f", cluster.hostfile_mpich().string()};
  }
  return settings;
}

}  // namespace yadokari::sim
