#include "runtime/cli/checkpoint_command.hpp"

#include <chrono>
#include <cstdio>
#include <string>

#include "runtime/cli/cli_error.hpp"
#include "runtime/cli/job_pick.hpp"
#include "runtime/control/checkpoint_client.hpp"
#include "runtime/frontend/network_namespace.hpp"

namespace yadokari::cli {
namespace {

// The front end answers within 120 s (it gives up on the epoch then); allow for a busy machine.
constexpr std::chrono::milliseconds kAnswerTimeout{130000};
// A rebalance is answered at once (it then runs in the front end).
constexpr std::chrono::milliseconds kRebalanceAnswerTimeout{10000};

// Asks the running job `job_id` with `request(endpoint, id, credential)` and prints its answer:
// "yadokari: <message>" and 0 when it says ok, CliError(1) with its message otherwise.
template <class Request>
int ask_running_job(const std::string& job_id, Request request) {
  const control::JobRecord job = pick_job(job_id);
  try {
    // A job on a simulated cluster listens inside the cluster: ask from there.
    const auto reply = frontend::in_network_namespace_of_job(
        job, [&] { return request(job.status_endpoint, job.job_id, job.credential); });
    if (!reply.ok) throw CliError(exit_code::failure, reply.message);
    std::printf("yadokari: %s\n", reply.message.c_str());
    return 0;
  } catch (const control::StatusError& e) {
    throw CliError(exit_code::failure, e.what());
  }
}

}  // namespace

int take_checkpoint(const CheckpointOptions& options) {
  return ask_running_job(options.job, [](const auto& endpoint, const auto& id, const auto& credential) {
    return control::request_checkpoint(endpoint, id, credential, kAnswerTimeout);
  });
}

int rebalance_job(const CheckpointOptions& options) {
  return ask_running_job(options.job, [](const auto& endpoint, const auto& id, const auto& credential) {
    return control::request_rebalance(endpoint, id, credential, kRebalanceAnswerTimeout);
  });
}

int migrate_ranks(const MigrateOptions& options) {
  return ask_running_job(options.job, [&options](const auto& endpoint, const auto& id, const auto& credential) {
    return control::request_migrate(endpoint, id, credential, options.ranks, options.to, options.live,
                                    kRebalanceAnswerTimeout);
  });
}

}  // namespace yadokari::cli
