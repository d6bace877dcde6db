#pragma once
// The CLI's side of the status endpoint: one request, one StatusReport.
#include <chrono>
#include <stdexcept>
#include <string>

#include "protocol/codec.hpp"
#include "runtime/control/client_error.hpp"

namespace yadokari::control {

// `credential` is the job's (its record's `secret` field, protocol/credential.hpp). Throws
// StatusError if the front end does not answer within `timeout` or refuses the request.
protocol::StatusReport request_status(const std::string& endpoint, const std::string& job_id,
                                      const std::string& credential, std::chrono::milliseconds timeout);

}  // namespace yadokari::control
