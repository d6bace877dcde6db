#pragma once
// One request to a job's front end on its status endpoint (REQ/REP), shared by `yadokari status`
// and `yadokari checkpoint`: send, wait up to `timeout` (a signal such as a terminal resize does
// not end the wait), decode, and turn every way it can go wrong into one StatusError line.
#include <array>
#include <cerrno>
#include <chrono>
#include <string>
#include <zmq.hpp>

#include "protocol/codec.hpp"
#include "protocol/credential.hpp"
#include "protocol/curve.hpp"
#include "runtime/control/client_error.hpp"

namespace yadokari::control {

// The job's credential from its record, or one StatusError line.
inline protocol::Credential credential_of(const std::string& job_id, const std::string& text) {
  auto credential = protocol::parse_credential(text);
  if (!credential)
    throw StatusError("the record of job " + job_id + " holds no valid credential (written by another yadokari?)");
  return *credential;
}

// `what` names the request in messages ("status", "checkpoint"). The link is encrypted and goes
// only to the coordinator holding the credential's key (protocol/curve.hpp).
template <class Reply>
Reply ask_front_end(const std::string& endpoint, const std::string& job_id, const protocol::Credential& credential,
                    const protocol::Message& request_message, const char* what, std::chrono::milliseconds timeout) {
  zmq::context_t context;
  context.set(zmq::ctxopt::blocky, 0);
  zmq::socket_t request(context, zmq::socket_type::req);
  request.set(zmq::sockopt::linger, 0);
  protocol::connect_with_curve(request, credential.coordinator_key);
  request.connect(endpoint);
  const std::string bytes = protocol::encode(request_message);
  (void)request.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  std::array<zmq::pollitem_t, 1> items{{{request.handle(), 0, ZMQ_POLLIN, 0}}};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    try {
      zmq::poll(items.data(), items.size(), left);
      break;
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) throw;
    }
  }
  zmq::message_t reply;
  if (!(items[0].revents & ZMQ_POLLIN) || !request.recv(reply, zmq::recv_flags::dontwait))
    throw StatusError("job " + job_id + " did not answer at " + endpoint);
  try {
    protocol::Message message = protocol::decode(reply.to_string_view());
    if (auto* error = std::get_if<protocol::ErrorReply>(&message))
      throw StatusError("job " + job_id + " refused the " + what + " request: " + error->reason);
    if (auto* answer = std::get_if<Reply>(&message)) return std::move(*answer);
    throw StatusError("job " + job_id + " answered with " +
                      std::string(protocol::message_type_name(protocol::type_of(message))));
  } catch (const protocol::ProtocolError& e) {
    throw StatusError("job " + job_id + " sent a bad answer: " + e.what());
  }
}

}  // namespace yadokari::control
