#pragma once
// The agent's heartbeats, sent from a thread of their own. The agent's main loop also copies and
// verifies checkpoint images (node_images.hpp), which takes seconds for a large image; beats sent
// from that loop would stop meanwhile and the node would be declared lost. The thread shares the
// agent's one connection to the coordinator (SharedSocket) and goes first whenever a beat is due.
// Each beat says how late it was sent (the thread's own scheduling delay), so the coordinator can
// tell a node whose agent waits for a CPU from a node that is gone.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <zmq.hpp>

namespace yadokari::agent {

// A ZeroMQ socket used from two threads, one at a time (ZeroMQ sockets are not thread-safe).
class SharedSocket {
 public:
  explicit SharedSocket(zmq::socket_t& socket) : socket_(socket) {}
  // The socket, locked for as long as the returned guard lives. `urgent` (the heartbeat thread, the rank relay)
  // makes the other thread step back before it takes the lock again.
  class Use {
   public:
    Use(SharedSocket& shared, bool urgent);
    ~Use();
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;
    zmq::socket_t& socket() { return shared_.socket_; }

   private:
    SharedSocket& shared_;
    bool urgent_;
  };

 private:
  zmq::socket_t& socket_;
  std::mutex mutex_;
  std::atomic<int> urgent_waiting_{0};
};

class HeartbeatSender {
 public:
  // Starts sending at once, then every `interval`.
  HeartbeatSender(SharedSocket& socket, std::chrono::milliseconds interval);
  ~HeartbeatSender();  // stops and joins the thread
  HeartbeatSender(const HeartbeatSender&) = delete;
  HeartbeatSender& operator=(const HeartbeatSender&) = delete;

 private:
  void run();
  SharedSocket& socket_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace yadokari::agent
