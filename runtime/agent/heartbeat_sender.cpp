#include "runtime/agent/heartbeat_sender.hpp"

#include <algorithm>
#include <string>

#include "protocol/codec.hpp"

namespace yadokari::agent {

SharedSocket::Use::Use(SharedSocket& shared, bool urgent) : shared_(shared), urgent_(urgent) {
  if (urgent_) {
    ++shared_.urgent_waiting_;
  } else {
    // std::mutex is not fair: a loop that takes it again right after releasing it would starve the
    // heartbeat thread.
    while (shared_.urgent_waiting_.load() > 0) std::this_thread::yield();
  }
  shared_.mutex_.lock();
  if (urgent_) --shared_.urgent_waiting_;
}

SharedSocket::Use::~Use() { shared_.mutex_.unlock(); }

HeartbeatSender::HeartbeatSender(SharedSocket& socket, std::chrono::milliseconds interval)
    : socket_(socket), interval_(interval), thread_([this] { run(); }) {}

HeartbeatSender::~HeartbeatSender() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void HeartbeatSender::run() {
  using Clock = std::chrono::steady_clock;
  std::uint64_t sequence = 0;
  auto due = Clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    if (wake_.wait_until(lock, due, [this] { return stop_; })) break;
    const auto late = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - due);
    const std::string beat = protocol::encode(
        protocol::Heartbeat{++sequence, static_cast<std::int32_t>(std::clamp<std::int64_t>(late.count(), 0, 1 << 30))});
    {
      SharedSocket::Use use(socket_, true);
      (void)use.socket().send(zmq::buffer(beat), zmq::send_flags::dontwait);
    }
    due += interval_;
    if (due < Clock::now()) due = Clock::now();  // descheduled for more than an interval: beat at once
  }
}

}  // namespace yadokari::agent
