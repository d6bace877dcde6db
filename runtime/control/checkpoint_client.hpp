#pragma once
// The CLI's side of `yadokari checkpoint`: one CheckpointRequest to the front end's status
// endpoint, answered when the epoch it started (or joined) ends; and of `yadokari rebalance`,
// answered at once (the rebalance then runs in the front end).
#include <chrono>
#include <string>

#include "control/protocol.hpp"
#include "control/status_client.hpp"

namespace yadokari::control {

// The front end's answer (ok or not). Throws StatusError if it does not answer within `timeout`,
// refuses the request, or answers with something else.
CheckpointReply request_checkpoint(const std::string& endpoint, const std::string& job_id,
                                   const std::string& secret, std::chrono::milliseconds timeout);
RebalanceReply request_rebalance(const std::string& endpoint, const std::string& job_id,
                                 const std::string& secret, std::chrono::milliseconds timeout);

}  // namespace yadokari::control
