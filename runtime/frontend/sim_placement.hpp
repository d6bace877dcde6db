#pragma once
// Running a job on a simulated cluster (`yadokari run/restart --sim NAME`): the launcher runs in
// the cluster's frontend namespace with the cluster's hostfile and launch agent, and the
// coordinator listens on the frontend's address, the only one the nodes can reach.
#include <string>
#include <utility>
#include <vector>

#include "frontend/restart_plan.hpp"
#include "launch/launcher.hpp"
#include "launch/mpi_flavour.hpp"

namespace yadokari::frontend {

struct SimPlacement {
  std::string bind_address;                  // the frontend's
  int frontend_pid = 0;                      // its namespaces' holder
  std::vector<std::string> frontend_prefix;  // prepended to the launcher's argv
  std::vector<std::string> launcher_args;    // right after the launcher (without the hostfile)
  std::vector<std::string> hostfile_args;    // the cluster's hostfile (live nodes), when no hosts are given
  std::vector<std::pair<std::string, std::string>> environment;  // for the launcher
  std::vector<ClusterNode> nodes;  // compute nodes; alive = not taken down by `sim kill`
};

// --hosts on a simulated cluster: each host must be one of its live nodes (id or hostname);
// returned with the nodes' hostnames, which the ranks report. FrontendError(usage) otherwise.
std::vector<launch::HostSlots> sim_hosts(const SimPlacement& sim, const std::string& cluster,
                                         std::vector<launch::HostSlots> hosts);

// The cluster's nodes as they are now (after `sim kill`s), for re-planning.
std::vector<ClusterNode> sim_nodes_now(const std::string& name);

// FrontendError when the cluster is missing or has no live node.
SimPlacement sim_placement(const std::string& name, launch::MpiFlavour flavour);

// Runs `make` with this thread in the frontend's network namespace, so that the sockets it binds
// live there; the thread's namespace is restored afterwards.
template <class F>
auto in_network_namespace_of(int pid, F&& make) -> decltype(make());

// make() run in the network namespace of the job's status endpoint (JobRecord::netns_pid).
template <class Job, class F>
auto in_network_namespace_of_job(const Job& job, F&& make) -> decltype(make()) {
  if (job.netns_pid == 0) return make();
  return in_network_namespace_of(static_cast<int>(job.netns_pid), std::forward<F>(make));
}

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

}  // namespace yadokari::frontend
