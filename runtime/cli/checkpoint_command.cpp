#include "cli/checkpoint_command.hpp"

#include <chrono>
#include <cstdio>

#include "cli/cli_error.hpp"
#include "cli/job_pick.hpp"
#include "cli/sim_placement.hpp"
#include "control/checkpoint_client.hpp"

namespace yadokari::cli {
namespace {

// The front end answers within 120 s (it gives up on the epoch then); allow for a busy machine.
constexpr std::chrono::milliseconds kAnswerTimeout{130000};
// A rebalance is answered at once (it then runs in the front end).
constexpr std::chrono::milliseconds kRebalanceAnswerTimeout{10000};

}  // namespace

int take_checkpoint(const CheckpointOptions& options) {
  const control::JobRecord job = pick_job(options.job);
  control::CheckpointReply reply;
  try {
    // A job on a simulated cluster listens inside the cluster: ask from there.
    reply = in_network_namespace_of_job(job, [&] {
      return control::request_checkpoint(job.status_endpoint, job.job_id, job.secret, kAnswerTimeout);
    });
  } catch (const control::StatusError& e) {
    throw CliError(exit_code::failure, e.what());
  }
  if (!reply.ok) throw CliError(exit_code::failure, reply.message);
  std::printf("yadokari: %s\n", reply.message.c_str());
  return 0;
}

int rebalance_job(const CheckpointOptions& options) {
  const control::JobRecord job = pick_job(options.job);
  control::RebalanceReply reply;
  try {
    reply = in_network_namespace_of_job(job, [&] {
      return control::request_rebalance(job.status_endpoint, job.job_id, job.secret, kRebalanceAnswerTimeout);
    });
  } catch (const control::StatusError& e) {
    throw CliError(exit_code::failure, e.what());
  }
  if (!reply.ok) throw CliError(exit_code::failure, reply.message);
  std::printf("yadokari: %s\n", reply.message.c_str());
  return 0;
}

}  // namespace yadokari::cli
