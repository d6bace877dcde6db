#include "cli/sim_placement.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli/cli_error.hpp"
#include "sim/launch_settings.hpp"
#include "sim/lifecycle.hpp"
#include "sim/sim_error.hpp"

namespace yadokari::cli {

SimPlacement sim_placement(const std::string& name, launch::MpiFlavour flavour) {
  try {
    const sim::Cluster cluster = sim::load_cluster(name);
    bool any_alive = false;
    for (const auto& node : cluster.nodes) any_alive = any_alive || node.alive;
    if (!any_alive) throw CliError(exit_code::failure, "simulated cluster " + name + " has no live node");
    const sim::LaunchSettings settings = sim::launch_settings(cluster, flavour);
    return SimPlacement{cluster.frontend.address, static_cast<int>(cluster.frontend.pid),
                        settings.frontend_prefix, settings.launcher_args, settings.environment};
  } catch (const sim::SimError& e) {
    throw CliError(exit_code::failure, e.what());
  }
}

void enter_network_namespace(int pid, int* saved_fd) {
  *saved_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  const std::string path = "/proc/" + std::to_string(pid) + "/ns/net";
  const int target = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (*saved_fd < 0 || target < 0 || setns(target, CLONE_NEWNET) != 0) {
    const std::string why = std::strerror(errno);
    if (target >= 0) close(target);
    if (*saved_fd >= 0) close(*saved_fd);
    throw CliError(exit_code::failure, "cannot enter the simulated cluster's frontend (" + path + "): " + why);
  }
  close(target);
}

void leave_network_namespace(int saved_fd) {
  if (saved_fd < 0) return;
  (void)setns(saved_fd, CLONE_NEWNET);
  close(saved_fd);
}

}  // namespace yadokari::cli
