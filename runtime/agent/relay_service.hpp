#pragma once
// The agent's rank relay (rank_relay.hpp) on a thread of its own: batches go up on the agent's
// connection to the coordinator (shared with the main loop and the heartbeats, SharedSocket), and
// the main loop hands it the RelayedDown messages it receives. A node whose relay cannot start
// runs on without one: its ranks find no relay socket and connect to the coordinator directly.
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "protocol/codec.hpp"
#include "runtime/agent/heartbeat_sender.hpp"
#include "runtime/agent/rank_relay.hpp"

namespace yadokari::agent {

class RelayService {
 public:
  // Binds the relay socket at `path` and starts the thread; throws RelayError when it cannot.
  RelayService(zmq::context_t& context, SharedSocket& upstream, const std::string& path);
  ~RelayService();  // stops and joins the thread, removes the socket
  RelayService(const RelayService&) = delete;
  RelayService& operator=(const RelayService&) = delete;

  // From the agent's main loop (one thread only).
  void deliver(const protocol::RelayedDown& down);

 private:
  void run();

  SharedSocket& upstream_;
  std::unique_ptr<RankRelay> relay_;
  zmq::socket_t inbox_;   // the thread's end of the pipe from the main loop
  zmq::socket_t outbox_;  // the main loop's end
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace yadokari::agent
