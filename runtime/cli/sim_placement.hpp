#pragma once
// Running a job on a simulated cluster (`yadokari run/restart --sim NAME`): the launcher runs in
// the cluster's frontend namespace with the cluster's hostfile and launch agent, and the
// coordinator listens on the frontend's address, the only one the nodes can reach.
#include <string>
#include <utility>
#include <vector>

#include "launch/mpi_flavour.hpp"

namespace yadokari::cli {

struct SimPlacement {
  std::string bind_address;                  // the frontend's
  int frontend_pid = 0;                      // its namespaces' holder
  std::vector<std::string> frontend_prefix;  // prepended to the launcher's argv
  std::vector<std::string> launcher_args;    // right after the launcher
  std::vector<std::pair<std::string, std::string>> environment;  // for the launcher
};

// CliError when the cluster is missing or has no live node.
SimPlacement sim_placement(const std::string& name, launch::MpiFlavour flavour);

// Runs `make` with this thread in the frontend's network namespace, so that the sockets it binds
// live there; the thread's namespace is restored afterwards.
template <class F>
auto in_network_namespace_of(int pid, F&& make) -> decltype(make());

void enter_network_namespace(int pid, int* saved_fd);
void leave_network_namespace(int saved_fd);

template <class F>
auto in_network_namespace_of(int pid, F&& make) -> decltype(make()) {
  int saved = -1;
  enter_network_namespace(pid, &saved);
  try {
    auto result = make();
    leave_network_namespace(saved);
    return result;
  } catch (...) {
    leave_network_namespace(saved);
    throw;
  }
}

}  // namespace yadokari::cli
