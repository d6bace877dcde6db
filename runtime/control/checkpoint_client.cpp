#include "runtime/control/checkpoint_client.hpp"

#include "runtime/control/front_end_request.hpp"

namespace yadokari::control {

protocol::CheckpointReply request_checkpoint(const std::string& endpoint, const std::string& job_id,
                                             const std::string& credential, std::chrono::milliseconds timeout) {
  const protocol::Credential c = credential_of(job_id, credential);
  return ask_front_end<protocol::CheckpointReply>(endpoint, job_id, c, protocol::CheckpointRequest{job_id, c.secret},
                                                  "checkpoint", timeout);
}

protocol::RebalanceReply request_rebalance(const std::string& endpoint, const std::string& job_id,
                                           const std::string& credential, std::chrono::milliseconds timeout) {
  const protocol::Credential c = credential_of(job_id, credential);
  return ask_front_end<protocol::RebalanceReply>(endpoint, job_id, c, protocol::RebalanceRequest{job_id, c.secret},
                                                 "rebalance", timeout);
}

protocol::RebalanceReply request_migrate(const std::string& endpoint, const std::string& job_id,
                                         const std::string& credential, const std::vector<std::int32_t>& ranks,
                                         const std::string& to, bool live, std::chrono::milliseconds timeout) {
  const protocol::Credential c = credential_of(job_id, credential);
  return ask_front_end<protocol::RebalanceReply>(
      endpoint, job_id, c, protocol::MigrateRequest{job_id, c.secret, ranks, to, live}, "migrate", timeout);
}

}  // namespace yadokari::control
