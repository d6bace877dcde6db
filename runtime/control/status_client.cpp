#include "control/status_client.hpp"

#include "control/front_end_request.hpp"

namespace yadokari::control {

protocol::StatusReport request_status(const std::string& endpoint, const std::string& job_id, const std::string& secret,
                                      std::chrono::milliseconds timeout) {
  return ask_front_end<protocol::StatusReport>(endpoint, job_id, protocol::StatusRequest{job_id, secret}, "status",
                                               timeout);
}

}  // namespace yadokari::control
