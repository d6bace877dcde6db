#include "pmpi-layer/src/link/rank_client.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <stdexcept>
#include <mutex>
#include <thread>
#include <utility>
#include <zmq.hpp>

#include "protocol/credential.hpp"
#include "protocol/curve.hpp"
#include "protocol/relay_socket.hpp"
#include "common/parameters.hpp"

namespace yadokari::link {
namespace {

constexpr const char* kStopEndpoint = "inproc://yadokari-rank-client-stop";
constexpr std::int64_t kMaxMessageBytes = 1 << 20;
constexpr std::chrono::milliseconds kStopCheckInterval{500};
// What a rank queued just before it ends (the RankRestored of a restarted rank that had nothing
// left to do, a last report) must still reach the coordinator: a short linger when the client
// stops, bounded so that a rank whose coordinator is gone does not wait long at exit.
constexpr std::chrono::milliseconds kLastMessagesLinger{500};

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string local_hostname() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

// Every socket of the client must close without waiting for unsent data: the coordinator may
// be gone when the rank exits.
zmq::socket_t make_socket(zmq::context_t& context, zmq::socket_type type) {
  zmq::socket_t socket(context, type);
  socket.set(zmq::sockopt::linger, 0);
  return socket;
}

}  // namespace

struct RankControlClient::Impl {
  protocol::RegisterRank registration;
  Snapshot snapshot;
  Listener listener;
  // Messages other threads want sent; the eventfd wakes the client's poll.
  std::mutex outbox_mutex;
  std::deque<std::string> outbox;
  int wake_fd = -1;
  pid_t owner_pid = getpid();
  zmq::context_t context;
  zmq::socket_t stop_sender;  // touched only by the owning thread, in the destructor
  std::thread thread;
  std::atomic<bool> registered{false};
  std::atomic<bool> stopping{false};

  void run(zmq::socket_t dealer, zmq::socket_t stop_receiver) noexcept;
  void send_outbox(zmq::socket_t& dealer);
  // false: the coordinator refused us, stop serving
  bool answer(zmq::socket_t& dealer, const protocol::Message& message, bool& reported_bad_message);
};

bool RankControlClient::Impl::answer(zmq::socket_t& dealer, const protocol::Message& message,
                                     bool& reported_bad_message) {
  if (const auto* ack = std::get_if<protocol::RegisterAck>(&message)) {
    if (ack->accepted) {
      registered = true;
    } else {
      std::fprintf(stderr, "yadokari: control plane refused rank %d: %s\n", registration.logical_rank,
                   ack->reason.c_str());
      return false;  // the rank continues without control
    }
  } else if (const auto* query = std::get_if<protocol::QueryStatus>(&message)) {
    if (!registered) return true;
    protocol::RankStatus status = snapshot();
    status.query_id = query->query_id;
    status.logical_rank = registration.logical_rank;
    status.pid = registration.pid;
    status.hostname = registration.hostname;
    const std::string bytes = protocol::encode(status);
    (void)dealer.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  } else if (listener && (std::holds_alternative<protocol::CheckpointPrepare>(message) ||
                          std::holds_alternative<protocol::CutTargets>(message) ||
                          std::holds_alternative<protocol::CutGo>(message) ||
                          std::holds_alternative<protocol::CheckpointRelease>(message) ||
                          std::holds_alternative<protocol::SwapLibrary>(message) ||
                          std::holds_alternative<protocol::CheckpointResume>(message))) {
    listener(message);
  } else if (!reported_bad_message) {
    reported_bad_message = true;
    std::fprintf(stderr, "yadokari: rank %d ignores unexpected control message %s\n", registration.logical_rank,
                 std::string(protocol::message_type_name(protocol::type_of(message))).c_str());
  }
  return true;
}

void RankControlClient::Impl::run(zmq::socket_t dealer, zmq::socket_t stop_receiver) noexcept {
  bool reported_bad_message = false;
  try {
    const std::string hello = protocol::encode(registration);
    // A connected DEALER queues even before the TCP connection exists, so this never blocks.
    (void)dealer.send(zmq::buffer(hello), zmq::send_flags::dontwait);
    while (!stopping) {
      std::array<zmq::pollitem_t, 3> items{{
          {dealer.handle(), 0, ZMQ_POLLIN, 0},
          {stop_receiver.handle(), 0, ZMQ_POLLIN, 0},
          {nullptr, wake_fd, ZMQ_POLLIN, 0},
      }};
      // The timeout is only a second line of defence behind the stop message.
      try {
        zmq::poll(items.data(), items.size(), kStopCheckInterval);
      } catch (const zmq::error_t& e) {
        if (e.num() == EINTR) continue;
        throw;
      }
      if (items[1].revents & ZMQ_POLLIN) break;
      if (items[2].revents & ZMQ_POLLIN) {
        std::uint64_t ignored = 0;
        (void)!::read(wake_fd, &ignored, sizeof ignored);
        send_outbox(dealer);
      }
      if (!(items[0].revents & ZMQ_POLLIN)) continue;
      zmq::message_t frame;
      if (!dealer.recv(frame, zmq::recv_flags::dontwait)) continue;
      try {
        if (!answer(dealer, protocol::decode(frame.to_string_view()), reported_bad_message)) return;
      } catch (const protocol::ProtocolError& e) {
        if (!reported_bad_message) {
          reported_bad_message = true;
          std::fprintf(stderr, "yadokari: rank %d ignores a control message: %s\n", registration.logical_rank,
                       e.what());
        }
      }
    }
    send_outbox(dealer);
    dealer.set(zmq::sockopt::linger, static_cast<int>(kLastMessagesLinger.count()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "yadokari: control plane stopped on rank %d: %s\n", registration.logical_rank, e.what());
  }
  // The snapshot callback may throw anything; the thread must still end quietly.
  catch (...) {
    std::fprintf(stderr, "yadokari: control plane stopped on rank %d\n", registration.logical_rank);
  }
}

void RankControlClient::Impl::send_outbox(zmq::socket_t& dealer) {
  std::deque<std::string> pending;
  {
    std::lock_guard<std::mutex> lock(outbox_mutex);
    pending.swap(outbox);
  }
  for (const std::string& bytes : pending) (void)dealer.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
}

RankControlClient::RankControlClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<RankControlClient> RankControlClient::start_from_env(const RankIdentity& id, Snapshot snapshot,
                                                                     Listener listener) noexcept {
  const std::string endpoint = env_or_empty(yadokari::parameters::kControl);
  if (endpoint.empty()) return nullptr;
  try {
    const auto credential = protocol::parse_credential(env_or_empty(yadokari::parameters::kJobSecret));
    if (!credential) throw std::runtime_error("YADOKARI_JOB_SECRET is not a job credential of this yadokari");
    auto impl = std::make_unique<Impl>();
    impl->registration = protocol::RegisterRank{
        env_or_empty(yadokari::parameters::kJobId),
        credential->secret,
        id.logical_rank,
        id.world_size,
        id.pid != 0 ? id.pid : static_cast<std::int64_t>(getpid()),
        id.hostname.empty() ? local_hostname() : id.hostname,
        id.flavour.empty() ? env_or_empty(yadokari::parameters::kFlavour) : id.flavour,
        id.init_seconds,
    };
    impl->snapshot = std::move(snapshot);
    impl->listener = std::move(listener);
    impl->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (impl->wake_fd < 0) throw std::runtime_error("eventfd failed");
    impl->context.set(zmq::ctxopt::blocky, 0);

    // Set up every socket here so a bad endpoint is reported synchronously; the thread then
    // takes sole ownership of the ones it polls (thread start is a full memory barrier).
    zmq::socket_t stop_receiver = make_socket(impl->context, zmq::socket_type::pair);
    stop_receiver.bind(kStopEndpoint);
    impl->stop_sender = make_socket(impl->context, zmq::socket_type::pair);
    impl->stop_sender.connect(kStopEndpoint);
    zmq::socket_t dealer = make_socket(impl->context, zmq::socket_type::dealer);
    dealer.set(zmq::sockopt::maxmsgsize, kMaxMessageBytes);
    // Through the node's agent when it relays (runtime/agent/rank_relay.hpp): the front end then
    // handles a message per node instead of one per rank. The node-local socket is reachable only
    // by this user; the agent's own link to the coordinator is encrypted.
    const std::string relay = protocol::relay_socket_path(impl->registration.job_id, impl->registration.hostname);
    if (env_or_empty(yadokari::parameters::kAgentRelay) != "off" && protocol::relay_listening(relay)) {
      dealer.connect("ipc://" + relay);
    } else {
      protocol::connect_with_curve(dealer, credential->coordinator_key);
      dealer.connect(endpoint);
    }

    Impl* raw = impl.get();
    // The thread must never run the application's signal handlers (timers, profilers, its own
    // SIGUSR1...): it starts with every signal blocked. The caller's mask is restored at once.
    sigset_t all, callers;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &callers);
    try {
      impl->thread = std::thread([raw, dealer = std::move(dealer), stop_receiver = std::move(stop_receiver)]() mutable {
        raw->run(std::move(dealer), std::move(stop_receiver));
      });
    } catch (...) {
      pthread_sigmask(SIG_SETMASK, &callers, nullptr);
      throw;
    }
    pthread_sigmask(SIG_SETMASK, &callers, nullptr);
    return std::unique_ptr<RankControlClient>(new RankControlClient(std::move(impl)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "yadokari: control plane unavailable on rank %d (%s): %s\n", id.logical_rank, endpoint.c_str(),
                 e.what());
    return nullptr;
  }
}

RankControlClient::~RankControlClient() {
  if (!impl_) return;
  if (getpid() != impl_->owner_pid) {
    // A forked child has no copy of the thread and must not touch the parent's ZeroMQ state.
    (void)impl_.release();
    return;
  }
  impl_->stopping = true;
  try {
    (void)impl_->stop_sender.send(zmq::str_buffer("stop"), zmq::send_flags::dontwait);
  } catch (const zmq::error_t&) {
    // the thread still notices `stopping` within kStopCheckInterval
  }
  if (impl_->thread.joinable()) impl_->thread.join();
  ::close(impl_->wake_fd);
}

void RankControlClient::send(const protocol::Message& message) {
  std::string bytes = protocol::encode(message);
  {
    std::lock_guard<std::mutex> lock(impl_->outbox_mutex);
    impl_->outbox.push_back(std::move(bytes));
  }
  const std::uint64_t one = 1;
  (void)!::write(impl_->wake_fd, &one, sizeof one);
}

bool RankControlClient::registered() const { return impl_->registered.load(); }

}  // namespace yadokari::link
