#include "runtime/control/status_client.hpp"

#include "runtime/control/front_end_request.hpp"

namespace yadokari::control {

protocol::StatusReport request_status(const std::string& endpoint, const std::string& job_id,
                                      const std::string& credential, std::chrono::milliseconds timeout) {
  const protocol::Credential c = credential_of(job_id, credential);
  return ask_front_end<protocol::StatusReport>(endpoint, job_id, c, protocol::StatusRequest{job_id, c.secret}, "status",
                                               timeout);
}

}  // namespace yadokari::control
