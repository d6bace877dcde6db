#pragma once
// Where a job runs. The supervisor (launch_job, the restart loop) is the same everywhere; what
// differs between the places is behind this interface:
//   local  this host only (no --hosts, --hostfile or --sim): no node agents, so no automatic restart
//   hosts  the hosts of --hosts/--hostfile, an agent on each started over a remote shell
//   slurm  inside a Slurm allocation (SLURM_JOB_ID, none of the above): its nodes, an agent on each
//          as a job step (srun), the ranks started by the MPI's launcher through Slurm
//   sim    the simulated cluster of `--sim NAME` (`yadokari sim`): the launcher and the coordinator
//          in the cluster's frontend namespaces, an agent inside each live node
// One file per platform (platform_<name>.cpp) with its factory below; make_platform()
// (platform.cpp) is where a request picks one, so a new platform (slurm, ...) is a new file plus
// a line there.
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/control/coordinator.hpp"
#include "runtime/frontend/launch_request.hpp"
#include "runtime/frontend/node_agents.hpp"
#include "runtime/frontend/restart_plan.hpp"
#include "runtime/launch/launcher.hpp"

namespace yadokari::frontend {

class Platform {
 public:
  virtual ~Platform() = default;

  // --- the coordinator
  // The address it listens on; "" for its default (127.0.0.1).
  virtual std::string bind_host() const = 0;
  // Makes it where the job's nodes can reach it (by default, right here).
  virtual std::unique_ptr<control::Coordinator> start_coordinator(const control::CoordinatorConfig& config) const;
  // The process whose network namespace holds its endpoints (JobRecord::netns_pid); 0: this one's.
  virtual int netns_pid() const { return 0; }
  // The Slurm job it runs in (JobRecord::slurm_job_id); "" outside Slurm.
  virtual std::string slurm_job_id() const { return {}; }
  // Its nodes as Slurm first gave them (JobRecord::slurm_node_list); "" outside Slurm.
  virtual std::string slurm_node_list() const { return {}; }

  // --- nodes and their agents
  // Whether the job has node agents (heartbeats, the automatic restart loop, rebalance,
  // --node-dir). Without them the rest of this group is not used.
  virtual bool has_agents() const = 0;
  // The nodes at the start; each live one is a member of the job and gets an agent.
  virtual std::vector<ClusterNode> nodes() const = 0;
  // How to start the agent of a node (at the start, or one that joined).
  virtual AgentLaunch agent_launch(const ClusterNode& node) const = 0;
  // How long the agents of the start may take to say hello.
  virtual std::chrono::milliseconds agent_connect_timeout() const = 0;
  // The nodes as they are now, for re-planning a restart. FrontendError(failure) if unknowable.
  virtual std::vector<ClusterNode> nodes_now(const control::Coordinator& coordinator) const = 0;
  // Live nodes that appeared since the start and that `coordinator` does not expect yet (`yadokari
  // sim add`); asked about once a second while the job runs, they get an agent. Nodes that join
  // by themselves (`yadokari join`) come through the coordinator instead. None by default.
  virtual std::vector<ClusterNode> joined_nodes(const control::Coordinator& coordinator) const;
  // Whether every rank's pid is a process this host can see (and kill), wherever it runs.
  virtual bool shares_pid_namespace() const { return false; }

  // --- the launcher
  // The hosts of the first launch (empty: the launcher's/platform's default).
  virtual std::vector<launch::HostSlots> first_hosts() const = 0;
  // Added to the launcher's environment.
  virtual std::vector<std::pair<std::string, std::string>> launcher_environment() const { return {}; }
  // Right after the launcher's name. `hosts_given`: this launch has a host list of its own.
  virtual std::vector<std::string> launcher_args(bool hosts_given) const;
  // Put before the launcher's argv, its first word resolved in `path` (exec does not search
  // PATH). FrontendError(not_found) when it is not there.
  virtual std::vector<std::string> launcher_prefix(const std::string& path) const;
};

// The platform `request` asks for (its sim, else its hosts, else the Slurm allocation it runs in,
// else this host). Throws FrontendError
// when that platform cannot run the job (a simulated cluster without a live node, a host that is
// not one of its nodes, ...).
// The first hosts of `hosts` whose slots hold `ranks`, in order, as a launcher fills a host list:
// what a first launch is given, so that no host the job does not use runs part of the launcher
// (Open MPI starts a daemon on every host it is given, and the loss of a host that holds no rank
// would end the job: docs/flows/node-loss.md, "A node without ranks"). All of `hosts` when
// together they hold fewer slots than ranks (the launcher oversubscribes them, or refuses).
std::vector<launch::HostSlots> hosts_the_ranks_fill(const std::vector<launch::HostSlots>& hosts, int ranks);

std::unique_ptr<Platform> make_platform(const LaunchRequest& request);

// One per platform_<name>.cpp.
std::unique_ptr<Platform> make_local_platform(const LaunchRequest& request);
std::unique_ptr<Platform> make_hosts_platform(const LaunchRequest& request);
std::unique_ptr<Platform> make_sim_platform(const LaunchRequest& request);
std::unique_ptr<Platform> make_slurm_platform(const LaunchRequest& request);

}  // namespace yadokari::frontend
