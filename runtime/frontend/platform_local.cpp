// The local platform: the job runs on this host only (`yadokari run` without --hosts, --hostfile
// or --sim). No node agents: nothing to lose, so no automatic restart.
#include <cstdlib>
#include <optional>

#include "runtime/frontend/platform_hosts.hpp"
#include "runtime/frontend/platform.hpp"
#include "runtime/launch/shared_memory_dir.hpp"

namespace yadokari::frontend {
namespace {

class LocalPlatform : public Platform {
 public:
  explicit LocalPlatform(const LaunchRequest& request)
      : bind_address_(request.recovery.bind_address), hosts_(request.hosts) {
    // An Open MPI job's shared-memory segments go to a directory of their own, removed with
    // this platform (when launch_job returns) however the job ended; a user's own backing
    // directory is left as it is.
    if (request.flavour == launch::MpiFlavour::openmpi && !std::getenv("OMPI_MCA_btl_vader_backing_directory"))
      vader_dir_.emplace("/dev/shm", request.job_id);
  }

  std::string bind_host() const override { return bind_address_; }

  bool has_agents() const override { return false; }
  std::vector<ClusterNode> nodes() const override { return {}; }
  AgentLaunch agent_launch(const ClusterNode& node) const override { return AgentLaunch{node.id, {}, false}; }
  std::chrono::milliseconds agent_connect_timeout() const override { return std::chrono::milliseconds(0); }
  std::vector<ClusterNode> nodes_now(const control::Coordinator& coordinator) const override {
    return host_nodes_now(coordinator);
  }

  std::vector<launch::HostSlots> first_hosts() const override { return hosts_; }
  std::vector<std::pair<std::string, std::string>> launcher_environment() const override {
    if (!vader_dir_ || vader_dir_->path().empty()) return {};
    return {{"OMPI_MCA_btl_vader_backing_directory", vader_dir_->path().string()}};
  }

 private:
  std::string bind_address_;  // --bind-address; empty: the coordinator's default
  std::vector<launch::HostSlots> hosts_;
  std::optional<launch::SharedMemoryDir> vader_dir_;
};

}  // namespace

std::unique_ptr<Platform> make_local_platform(const LaunchRequest& request) {
  return std::make_unique<LocalPlatform>(request);
}

}  // namespace yadokari::frontend
