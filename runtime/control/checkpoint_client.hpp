#pragma once
// The CLI's side of `yadokari checkpoint`: one CheckpointRequest to the front end's status
// endpoint, answered when the epoch it started (or joined) ends; and of `yadokari rebalance`,
// answered at once (the rebalance then runs in the front end).
#include <chrono>
#include <string>

#include "protocol/codec.hpp"
#include "runtime/control/client_error.hpp"

namespace yadokari::control {

// The front end's answer (ok or not). Throws StatusError if it does not answer within `timeout`,
// refuses the request, or answers with something else.
protocol::CheckpointReply request_checkpoint(const std::string& endpoint, const std::string& job_id,
                                             const std::string& credential, std::chrono::milliseconds timeout);
protocol::RebalanceReply request_rebalance(const std::string& endpoint, const std::string& job_id,
                                           const std::string& credential, std::chrono::milliseconds timeout);

}  // namespace yadokari::control
