#include "control/status_client.hpp"

#include <array>
#include <zmq.hpp>

namespace yadokari::control {

StatusReport request_status(const std::string& endpoint, const std::string& job_id,
                            const std::string& secret, std::chrono::milliseconds timeout) {
  zmq::context_t context;
  context.set(zmq::ctxopt::blocky, 0);
  zmq::socket_t request(context, zmq::socket_type::req);
  request.set(zmq::sockopt::linger, 0);
  request.connect(endpoint);
  const std::string bytes = encode(StatusRequest{job_id, secret});
  (void)request.send(zmq::buffer(bytes), zmq::send_flags::dontwait);

  std::array<zmq::pollitem_t, 1> items{{{request.handle(), 0, ZMQ_POLLIN, 0}}};
  zmq::poll(items.data(), items.size(), timeout);
  zmq::message_t reply;
  if (!(items[0].revents & ZMQ_POLLIN) || !request.recv(reply, zmq::recv_flags::dontwait))
    throw StatusError("job " + job_id + " did not answer at " + endpoint);
  try {
    Message message = decode(reply.to_string_view());
    if (auto* error = std::get_if<ErrorReply>(&message))
      throw StatusError("job " + job_id + " refused the status request: " + error->reason);
    if (auto* report = std::get_if<StatusReport>(&message)) return std::move(*report);
    throw StatusError("job " + job_id + " answered with " +
                      std::string(message_type_name(type_of(message))));
  } catch (const ProtocolError& e) {
    throw StatusError("job " + job_id + " sent a bad answer: " + e.what());
  }
}

}  // namespace yadokari::control
