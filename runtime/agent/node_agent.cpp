#include "runtime/agent/node_agent.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "runtime/agent/detector_priority.hpp"
#include "runtime/agent/heartbeat_sender.hpp"
#include "runtime/agent/image_service.hpp"
#include "runtime/agent/job_processes.hpp"
#include "runtime/agent/relay_service.hpp"
#include "protocol/codec.hpp"
#include "protocol/credential.hpp"
#include "protocol/curve.hpp"
#include "protocol/relay_socket.hpp"

namespace yadokari::agent {
namespace {

using Clock = std::chrono::steady_clock;
volatile std::sig_atomic_t g_stop = 0;

void on_stop(int) { g_stop = 1; }

std::string this_host() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

int fail(const AgentOptions& options, const std::string& why) {
  std::fprintf(stderr, "yadokari agent (node %s): %s\n", options.node.c_str(), why.c_str());
  return 1;
}

bool g_front_end_gone = false;

// True once `fd` is at end of file (or broken): the front end that started us is gone.
bool at_end_of_file(int fd) {
  char buffer[64];
  const ssize_t got = read(fd, buffer, sizeof buffer);
  return got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN);
}

// Receives one message within `timeout`; nullopt on timeout, a signal, or an undecodable frame.
// Also watches `eof_fd` (if >= 0) and sets g_front_end_gone when it closes.
// The socket is held for at most kPollSlice at a time, so that a due heartbeat waits no longer.
constexpr std::chrono::milliseconds kPollSlice{10};

// `image_port` (may be null) is watched too: `image_port_ready` says whether it has something.
std::optional<protocol::Message> receive(SharedSocket& shared, std::chrono::milliseconds timeout, int eof_fd,
                                         zmq::socket_t* image_port = nullptr, bool* image_port_ready = nullptr) {
  zmq::message_t frame;
  {
    SharedSocket::Use use(shared, false);
    zmq::socket_t& socket = use.socket();
    std::vector<zmq::pollitem_t> items{{socket.handle(), 0, ZMQ_POLLIN, 0}};
    const std::size_t port_item = items.size();
    if (image_port) items.push_back({image_port->handle(), 0, ZMQ_POLLIN, 0});
    const std::size_t eof_item = items.size();
    if (eof_fd >= 0) items.push_back({nullptr, eof_fd, ZMQ_POLLIN, 0});
    try {
      zmq::poll(items.data(), items.size(), std::min(timeout, kPollSlice));
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) return std::nullopt;
      throw;
    }
    if (eof_fd >= 0 && (items[eof_item].revents & (ZMQ_POLLIN | ZMQ_POLLERR)) && at_end_of_file(eof_fd))
      g_front_end_gone = true;
    if (image_port_ready) *image_port_ready = image_port && (items[port_item].revents & ZMQ_POLLIN);
    if (!(items[0].revents & ZMQ_POLLIN)) return std::nullopt;
    if (!socket.recv(frame, zmq::recv_flags::dontwait)) return std::nullopt;
  }
  try {
    return protocol::decode(frame.to_string_view());
  } catch (const protocol::ProtocolError& e) {
    std::fprintf(stderr, "yadokari agent: ignored a control message: %s\n", e.what());
    return std::nullopt;
  }
}

void send(SharedSocket& shared, const protocol::Message& message) {
  const std::string bytes = protocol::encode(message);
  SharedSocket::Use use(shared, false);
  (void)use.socket().send(zmq::buffer(bytes), zmq::send_flags::dontwait);
}

// Whether the connection to the coordinator is up, from the socket's monitor events. ZMTP
// heartbeats (set on the socket) turn a peer that vanished without closing TCP (its host lost, its
// link down) into a disconnect too.
class ConnectionWatch : public zmq::monitor_t {
 public:
  // Down since when; nullopt while connected.
  std::optional<Clock::time_point> down_since() {
    while (check_event(0)) {
    }
    return down_since_;
  }

 private:
  void on_event_connected(const zmq_event_t&, const char*) override { down_since_.reset(); }
  void on_event_disconnected(const zmq_event_t&, const char*) override {
    if (!down_since_) down_since_ = Clock::now();
  }
  std::optional<Clock::time_point> down_since_;
};

// Only processes of this job, never the agent itself. A pid that has already ended is not refused
// but skipped: on a simulated cluster the front end kills the ranks by pid right after sending the
// order, so they are often gone (or zombies, whose environment reads empty) when it arrives.
void stop_processes(const protocol::StopProcesses& stop, const AgentOptions& options) {
  for (const std::int64_t pid : stop.pids) {
    if (pid == getpid()) continue;
    if (!still_running(static_cast<pid_t>(pid))) continue;
    if (belongs_to_job(static_cast<pid_t>(pid), options.job_id))
      (void)kill(static_cast<pid_t>(pid), SIGKILL);
    else
      std::fprintf(stderr, "yadokari agent %s: not stopping pid %lld: not a process of job %s\n", options.node.c_str(),
                   static_cast<long long>(pid), options.job_id.c_str());
  }
}

// Whether every pid in `pids` has ended within `limit`.
bool all_ended_within(std::vector<pid_t>& pids, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  for (;;) {
    std::erase_if(pids, [](pid_t pid) { return !still_running(pid); });
    if (pids.empty() || Clock::now() >= deadline) return pids.empty();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Stops every process of the job in this node and returns how many there were. First SIGTERM:
// Open MPI's orted then ends its ranks and removes their shared-memory files and its session
// directory (SIGKILLed, it leaves them in the node's /dev/shm and temp directory); what still
// runs after kTermGrace is killed.
constexpr std::chrono::milliseconds kTermGrace{2000};
int stop_job_here(const AgentOptions& options) {
  std::vector<pid_t> pids = job_processes_here(options.job_id);
  const int found = static_cast<int>(pids.size());
  for (const pid_t pid : pids) (void)kill(pid, SIGTERM);
  if (!all_ended_within(pids, kTermGrace))
    for (const pid_t pid : pids) (void)kill(pid, SIGKILL);
  return found;
}

// The coordinator is unreachable (its host gone, or this node cut off): the job's processes here
// cannot take part in it any more, and ranks blocked on lost peers inside the MPI library would
// run on for minutes. The front end restarts the job elsewhere; what ran here must not run on.
int fail_lost(const AgentOptions& options) {
  const int stopped = stop_job_here(options);
  return fail(options, "lost the coordinator at " + options.coordinator + " (no connection for " +
                           std::to_string(options.coordinator_lost_after.count()) + " ms); stopped " +
                           std::to_string(stopped) + " process(es) of the job on this node");
}

// The job is over for this node (the front end ended it or died, or the coordinator said goodbye).
// Nothing of it may outlive it here: Open MPI daemonizes `orted` out of the launcher's process
// tree, so the front end's kill of that tree misses it, and in a node cut off from the network it
// never learns that mpirun is gone. When the front end died, the launcher got SIGTERM too and
// ends the job by itself, cleanly: what ends within kEndGrace is left to it.
constexpr std::chrono::milliseconds kEndGrace{2000};
int end_of_job(const AgentOptions& options) {
  std::vector<pid_t> pids = job_processes_here(options.job_id);
  if (pids.empty() || all_ended_within(pids, kEndGrace)) return 0;
  if (const int stopped = stop_job_here(options); stopped > 0)
    std::fprintf(stderr, "yadokari agent (node %s): the job ended; stopped %d process(es) of it left on this node\n",
                 options.node.c_str(), stopped);
  return 0;
}

}  // namespace

int run_node_agent(const AgentOptions& options) {
  const auto stopping = [&options] {
    return g_stop || g_front_end_gone || (options.stop_requested && options.stop_requested());
  };
  // The front end is our parent (nsenter execs, it does not fork): die with it.
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) return 0;
  struct sigaction action {};
  action.sa_handler = on_stop;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  raise_thread_priority();  // before the context: ZeroMQ's I/O thread takes this thread's priority

  const auto credential = protocol::parse_credential(options.credential);
  if (!credential) return fail(options, "YADOKARI_JOB_SECRET is not a job credential of this yadokari");
  zmq::context_t context;
  context.set(zmq::ctxopt::blocky, 0);
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::linger, 0);
  protocol::connect_with_curve(socket, credential->coordinator_key);
  socket.set(zmq::sockopt::maxmsgsize, std::int64_t{1} << 20);
  // A copy queues a whole image as chunks at once; a dropped chunk would fail the copy.
  socket.set(zmq::sockopt::sndhwm, 0);
  socket.set(zmq::sockopt::rcvhwm, 0);
  socket.set(zmq::sockopt::heartbeat_ivl, 1000);
  socket.set(zmq::sockopt::heartbeat_timeout, 3000);
  ConnectionWatch watch;
  watch.init(socket, "inproc://yadokari-agent-connection", ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED);
  try {
    socket.connect(options.coordinator);
  } catch (const zmq::error_t& e) {
    return fail(options, "cannot connect to " + options.coordinator + ": " + e.what());
  }
  SharedSocket shared(socket);
  // With node-local storage, other agents send their copies for this node straight to its port.
  ImageService images(context, options.node_dir, options.job_id, options.node, credential->secret, options.image_port,
                      [&shared](const protocol::Message& message) { send(shared, message); });
  const protocol::AgentHello greeting{
      options.job_id,     credential->secret, options.node,     this_host(), static_cast<std::int64_t>(getpid()),
      options.join_slots, images.port(),      images.port_key()};
  const std::string hello = protocol::encode(greeting);
  (void)socket.send(zmq::buffer(hello), zmq::send_flags::dontwait);

  const auto coordinator_lost = [&] {
    const auto down = watch.down_since();
    return down && Clock::now() - *down >= options.coordinator_lost_after;
  };

  std::chrono::milliseconds interval{0};
  const auto hello_deadline = Clock::now() + options.hello_timeout;
  while (interval.count() == 0) {
    if (stopping()) return end_of_job(options);
    if (coordinator_lost()) return fail_lost(options);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(hello_deadline - Clock::now());
    if (left.count() <= 0)
      return fail(options, "no answer from the coordinator at " + options.coordinator + " within " +
                               std::to_string(options.hello_timeout.count()) + " ms");
    const auto message = receive(shared, std::min(left, std::chrono::milliseconds(100)), options.end_on_eof_fd);
    if (!message) continue;
    if (const auto* ack = std::get_if<protocol::AgentAck>(&*message)) {
      if (!ack->accepted) return fail(options, "refused by the coordinator: " + ack->reason);
      interval = std::chrono::milliseconds(std::max(ack->heartbeat_ms, 1));
    }
  }

  const HeartbeatSender heartbeats(shared, interval);
  // The node's ranks reach the coordinator through us when they find the relay socket.
  std::optional<RelayService> relay;
  if (options.relay_ranks) {
    try {
      relay.emplace(context, shared, protocol::relay_socket_path(options.job_id, this_host()));
    } catch (const RelayError& e) {
      std::fprintf(stderr, "yadokari agent (node %s): %s; its ranks connect to the coordinator directly\n",
                   options.node.c_str(), e.what());
    }
  }
  while (!stopping()) {
    if (coordinator_lost()) return fail_lost(options);
    bool image_port_ready = false;
    const auto message =
        receive(shared, std::chrono::milliseconds(100), options.end_on_eof_fd, images.port_socket(), &image_port_ready);
    if (image_port_ready) images.serve_port();
    if (message) {
      if (const auto* stop = std::get_if<protocol::StopProcesses>(&*message))
        stop_processes(*stop, options);
      else if (std::holds_alternative<protocol::AgentBye>(*message))
        return end_of_job(options);
      else if (const auto* down = std::get_if<protocol::RelayedDown>(&*message)) {
        if (relay) relay->deliver(*down);
      } else
        images.serve(*message);
    }
    images.flush();
  }
  return end_of_job(options);
}

}  // namespace yadokari::agent
