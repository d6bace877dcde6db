#include "control/checkpoint_client.hpp"

#include "control/front_end_request.hpp"

namespace yadokari::control {

CheckpointReply request_checkpoint(const std::string& endpoint, const std::string& job_id,
                                   const std::string& secret, std::chrono::milliseconds timeout) {
  return ask_front_end<CheckpointReply>(endpoint, job_id, CheckpointRequest{job_id, secret}, "checkpoint", timeout);
}

RebalanceReply request_rebalance(const std::string& endpoint, const std::string& job_id,
                                 const std::string& secret, std::chrono::milliseconds timeout) {
  return ask_front_end<RebalanceReply>(endpoint, job_id, RebalanceRequest{job_id, secret}, "rebalance", timeout);
}

}  // namespace yadokari::control
