#include "runtime/agent/relay_service.hpp"

#include <array>
#include <cerrno>
#include <cstdio>

namespace yadokari::agent {
namespace {

// One pipe per agent process; tests run several agents on threads of one process, each with a
// context of its own, so the name never clashes.
constexpr const char* kPipe = "inproc://yadokari-agent-relay-down";

}  // namespace

RelayService::RelayService(zmq::context_t& context, SharedSocket& upstream, const std::string& path)
    : upstream_(upstream),
      relay_(std::make_unique<RankRelay>(context, path)),
      inbox_(context, zmq::socket_type::pair),
      outbox_(context, zmq::socket_type::pair) {
  inbox_.set(zmq::sockopt::linger, 0);
  outbox_.set(zmq::sockopt::linger, 0);
  inbox_.bind(kPipe);
  outbox_.connect(kPipe);
  thread_ = std::thread([this] { run(); });
}

RelayService::~RelayService() {
  stop_ = true;
  thread_.join();
}

void RelayService::deliver(const protocol::RelayedDown& down) {
  const std::string bytes = protocol::encode(down);
  (void)outbox_.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
}

void RelayService::run() {
  try {
    while (!stop_) {
      std::array<zmq::pollitem_t, 2> items{
          {{relay_->socket().handle(), 0, ZMQ_POLLIN, 0}, {inbox_.handle(), 0, ZMQ_POLLIN, 0}}};
      try {
        zmq::poll(items.data(), items.size(), relay_->until_due(RankRelay::Clock::now()));
      } catch (const zmq::error_t& e) {
        if (e.num() != EINTR) throw;
      }
      if (items[0].revents & ZMQ_POLLIN) relay_->receive();
      zmq::message_t frame;
      while (inbox_.recv(frame, zmq::recv_flags::dontwait))
        relay_->deliver(protocol::decode_as<protocol::RelayedDown>(frame.to_string_view()));
      if (auto due = relay_->take_due(RankRelay::Clock::now())) {
        const std::string bytes = protocol::encode(*due);
        // Urgent, as a heartbeat: the main loop takes the socket again right after each poll slice.
        SharedSocket::Use use(upstream_, true);
        (void)use.socket().send(zmq::buffer(bytes), zmq::send_flags::dontwait);
      }
    }
  } catch (const std::exception& e) {
    // The ranks of this node lose their link to the coordinator; the job is restarted as for a
    // lost rank. Said once, on the agent's stderr.
    std::fprintf(stderr, "yadokari agent: the relay of this node's ranks stopped: %s\n", e.what());
  }
}

}  // namespace yadokari::agent
