#pragma once
// The CLI's side of `yadokari checkpoint`: one CheckpointRequest to the front end's status
// endpoint, answered when the epoch it started (or joined) ends; and of `yadokari rebalance` and
// `yadokari migrate`, answered at once (the rebalance then runs in the front end).
#include <chrono>
#include <string>
#include <vector>

#include "protocol/codec.hpp"
#include "runtime/control/client_error.hpp"

namespace yadokari::control {

// The front end's answer (ok or not). Throws StatusError if it does not answer within `timeout`,
// refuses the request, or answers with something else.
protocol::CheckpointReply request_checkpoint(const std::string& endpoint, const std::string& job_id,
                                             const std::string& credential, std::chrono::milliseconds timeout);
protocol::RebalanceReply request_rebalance(const std::string& endpoint, const std::string& job_id,
                                           const std::string& credential, std::chrono::milliseconds timeout);
// `yadokari migrate`: move `ranks` to node `to`; answered at once like a rebalance.
protocol::RebalanceReply request_migrate(const std::string& endpoint, const std::string& job_id,
                                         const std::string& credential, const std::vector<std::int32_t>& ranks,
                                         const std::string& to, bool live, std::chrono::milliseconds timeout);

}  // namespace yadokari::control
