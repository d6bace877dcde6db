#include "runtime/cli/sim_drain.hpp"

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "runtime/cli/cli_error.hpp"
#include "runtime/control/job_registry.hpp"
#include "runtime/control/status_client.hpp"
#include "runtime/frontend/network_namespace.hpp"
#include "runtime/sim/lifecycle.hpp"
#include "runtime/sim/sim_error.hpp"

namespace yadokari::cli {
namespace {

// Each status question; a front end in the middle of a restart answers once it is through.
constexpr std::chrono::milliseconds kAnswerTimeout{5000};
// Each answer asks every rank of the job for its state: once a second is plenty for a departure.
constexpr std::chrono::milliseconds kLookInterval{1000};

bool front_end_gone(const control::JobRecord& job) {
  return kill(static_cast<pid_t>(job.pid), 0) != 0 && errno == ESRCH;
}

// The jobs whose front end listens in this cluster's frontend namespace.
std::vector<control::JobRecord> jobs_on(const sim::Cluster& cluster) {
  std::vector<control::JobRecord> jobs;
  try {
    for (auto& job : control::running_jobs(control::state_dir()))
      if (job.netns_pid == cluster.frontend.pid) jobs.push_back(std::move(job));
  } catch (const control::RegistryError& e) {
    throw CliError(exit_code::failure, e.what());
  }
  return jobs;
}

// The node as `job` describes it now; none when the job does not know the node.
std::optional<protocol::NodeStatus> node_in(const control::JobRecord& job, const std::string& node) {
  const protocol::StatusReport report = frontend::in_network_namespace_of_job(
      job, [&] { return control::request_status(job.status_endpoint, job.job_id, job.credential, kAnswerTimeout); });
  for (const auto& status : report.nodes)
    if (status.node == node) return status;
  return std::nullopt;
}

[[noreturn]] void give_up(const std::string& cluster, const std::string& node, const std::string& why) {
  try {
    sim::mark_draining(cluster, node, false);
  } catch (const sim::SimError&) {
  }
  throw CliError(exit_code::failure, why + "; " + node + " stays up and is not draining any more");
}

}  // namespace

int sim_drain(const std::string& cluster_name, const std::string& what, double timeout_s) {
  if (!(timeout_s > 0)) throw CliError(exit_code::usage, "--timeout must be a positive number of seconds");
  const sim::Node marked = sim::mark_draining(cluster_name, what, true);
  const std::string node = marked.id;
  const sim::Cluster cluster = sim::load_cluster(cluster_name);
  std::printf("%s is draining: jobs on cluster %s move their ranks off it\n", node.c_str(), cluster_name.c_str());
  std::fflush(stdout);

  std::vector<control::JobRecord> pending = jobs_on(cluster);
  std::set<std::string> told_moving;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!pending.empty()) {
    for (auto job = pending.begin(); job != pending.end();) {
      bool done = false;
      try {
        auto status = node_in(*job, node);
        if (status && status->drain_id != marked.drain_id) status->drain.clear();  // not seen this drain yet
        if (!status || status->drain == "empty") {
          std::printf("job %s: no rank on %s\n", job->job_id.c_str(), node.c_str());
          done = true;
        } else if (status->drain.starts_with("stuck: ")) {
          give_up(cluster_name, node,
                  "job " + job->job_id + " cannot move its ranks off " + node + ": " + status->drain.substr(7));
        } else if (status->drain == "moving" && told_moving.insert(job->job_id).second) {
          std::printf("job %s: moving rank(s) %s off %s\n", job->job_id.c_str(),
                      fmt::format("{}", fmt::join(status->ranks, ",")).c_str(), node.c_str());
        }
      } catch (const control::StatusError&) {
        done = front_end_gone(*job);  // ended, or busy restarting: asked again
        if (done) std::printf("job %s: ended\n", job->job_id.c_str());
      }
      std::fflush(stdout);
      job = done ? pending.erase(job) : std::next(job);
    }
    if (pending.empty()) break;
    if (std::chrono::steady_clock::now() > deadline) {
      std::string ids;
      for (const auto& job : pending) ids += (ids.empty() ? "" : ", ") + job.job_id;
      give_up(cluster_name, node, fmt::format("job(s) {} still hold ranks on {} after {:g} s", ids, node, timeout_s));
    }
    std::this_thread::sleep_for(kLookInterval);
  }
  const sim::KillResult result = sim::kill_node(cluster_name, node);
  std::printf("drained %s: no job holds a rank there; took it down (%d processes)\n", node.c_str(), result.processes);
  return 0;
}

}  // namespace yadokari::cli
