#include "control/checkpoint_client.hpp"

#include "control/front_end_request.hpp"

namespace yadokari::control {

protocol::CheckpointReply request_checkpoint(const std::string& endpoint, const std::string& job_id,
                                             const std::string& secret, std::chrono::milliseconds timeout) {
  return ask_front_end<protocol::CheckpointReply>(endpoint, job_id, protocol::CheckpointRequest{job_id, secret},
                                                  "checkpoint", timeout);
}

protocol::RebalanceReply request_rebalance(const std::string& endpoint, const std::string& job_id,
                                           const std::string& secret, std::chrono::milliseconds timeout) {
  return ask_front_end<protocol::RebalanceReply>(endpoint, job_id, protocol::RebalanceRequest{job_id, secret},
                                                 "rebalance", timeout);
}

}  // namespace yadokari::control
