#pragma once
// The CLI's side of the status endpoint: one request, one StatusReport.
#include <chrono>
#include <stdexcept>
#include <string>

#include "control/protocol.hpp"
#include "common/error.hpp"

namespace yadokari::control {

class StatusError : public yadokari::Error {
 public:
  using yadokari::Error::Error;
};

// Throws StatusError if the front end does not answer within `timeout` or refuses the request.
StatusReport request_status(const std::string& endpoint, const std::string& job_id,
                            const std::string& secret, std::chrono::milliseconds timeout);

}  // namespace yadokari::control
