#include "bench/scale/fake_nodes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "protocol/codec.hpp"
#include "protocol/credential.hpp"
#include "protocol/curve.hpp"
#include "protocol/relay_socket.hpp"
#include "runtime/agent/rank_relay.hpp"
#include "bench/scale/traffic_pattern.hpp"

namespace yadokari::bench::scale {
namespace {

using Clock = std::chrono::steady_clock;

// A line from the pipe (without its newline); "" once it closed.
std::string read_line(int fd) {
  std::string line;
  char c = 0;
  while (::read(fd, &c, 1) == 1) {
    if (c == '\n') return line;
    line += c;
  }
  return line;
}

void write_line(int fd, const std::string& line) {
  const std::string text = line + "\n";
  (void)!::write(fd, text.data(), text.size());
}

struct Link {
  zmq::context_t* context;
  std::string endpoint;
  std::string job_id;
  protocol::Credential credential;

  zmq::socket_t open() const {
    zmq::socket_t socket(*context, zmq::socket_type::dealer);
    protocol::connect_with_curve(socket, credential.coordinator_key);
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::sndhwm, 0);
    socket.set(zmq::sockopt::rcvhwm, 0);
    socket.connect(endpoint);
    return socket;
  }
};

struct Counts {
  std::atomic<std::uint64_t> sent{0};  // to the front end, heartbeats not counted
  std::atomic<std::uint64_t> received{0};
  std::atomic<std::uint64_t> heartbeats{0};
  std::atomic<std::size_t> accepted{0};  // agents and ranks
};

void send(zmq::socket_t& socket, const protocol::Message& message, Counts& counts) {
  const std::string bytes = protocol::encode(message);
  (void)socket.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  if (std::holds_alternative<protocol::Heartbeat>(message))
    ++counts.heartbeats;
  else
    ++counts.sent;
}

// The agents of the slice, on a thread of their own: heartbeats must keep their pace while the
// ranks' thread is busy (connecting thousands of sockets, writing images), as a real agent's do.
// With `relay`, each fake agent relays its node's fake ranks with the agents' own RankRelay, as a
// real agent does, from the moment it is accepted.
class FakeAgents {
 public:
  // The relays live in `relay_context`, the ranks' one: the agents' own I/O thread then carries
  // only their hellos and heartbeats, as a real agent's carries 16 ranks at most, and thousands of
  // ranks connecting to their relays do not hold up the beats.
  // `image_port`: each says hello with an image port (--node-dir), so that copy orders name one.
  FakeAgents(const Link& link, NodeSlice nodes, Counts& counts, zmq::context_t* relay_context, bool image_port)
      : counts_(counts), relay_context_(relay_context), job_id_(link.job_id) {
    for (int node = nodes.first; node < nodes.end; ++node) {
      agents_.push_back({node, link.open(), false, nullptr});
      protocol::AgentHello hello{
          link.job_id, link.credential.secret, node_id(node), node_hostname(node), getpid(), 0, 0, {}};
      if (image_port) {
        hello.image_port = 40000 + node % 20000;
        hello.image_key.assign(32, 'k');
      }
      send(agents_.back().socket, hello, counts_);
    }
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeAgents() {
    stop_ = true;
    thread_.join();
  }
  void silence(int node) { silent_node_ = node; }

 private:
  struct Agent {
    int node = 0;
    zmq::socket_t socket;
    bool accepted = false;
    std::unique_ptr<agent::RankRelay> relay;
  };

  void serve() {
    auto next_beat = Clock::now();
    while (!stop_) {
      // Each agent's connection, and its relay once it has one.
      std::vector<zmq::pollitem_t> items;
      for (auto& agent : agents_) items.push_back({agent.socket.handle(), 0, ZMQ_POLLIN, 0});
      for (auto& agent : agents_)
        if (agent.relay) items.push_back({agent.relay->socket().handle(), 0, ZMQ_POLLIN, 0});
      auto now = Clock::now();
      beat_if_due(next_beat);
      auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_beat - now);
      for (auto& agent : agents_)
        if (agent.relay) wait = std::min(wait, agent.relay->until_due(now));
      zmq::poll(items.data(), items.size(), std::clamp(wait, std::chrono::milliseconds(1), interval_));
      for (std::size_t i = 0; i < agents_.size(); ++i)
        if (items[i].revents & ZMQ_POLLIN) receive(agents_[i]);
      std::size_t item = agents_.size();
      now = Clock::now();
      for (auto& agent : agents_) {
        if (!agent.relay) continue;
        if (item < items.size() && items[item++].revents & ZMQ_POLLIN) agent.relay->receive();
        if (auto due = agent.relay->take_due(now)) send(agent.socket, *due, counts_);
        beat_if_due(next_beat);  // relaying hundreds of nodes' ranks must not delay the beats
      }
    }
  }

  void beat_if_due(Clock::time_point& next_beat) {
    const auto now = Clock::now();
    if (now < next_beat) return;
    for (auto& agent : agents_)
      if (agent.accepted && agent.node != silent_node_) send(agent.socket, protocol::Heartbeat{++sequence_}, counts_);
    next_beat = now + interval_;
  }

  void receive(Agent& agent) {
    zmq::message_t frame;
    while (agent.socket.recv(frame, zmq::recv_flags::dontwait)) {
      ++counts_.received;
      const protocol::Message message = protocol::decode(frame.to_string_view());
      if (const auto* ack = std::get_if<protocol::AgentAck>(&message)) {
        if (!ack->accepted) {
          std::fprintf(stderr, "scale harness worker: agent of %s refused: %s\n", node_id(agent.node).c_str(),
                       ack->reason.c_str());
          std::_Exit(1);
        }
        agent.accepted = true;
        if (relay_context_)
          agent.relay = std::make_unique<agent::RankRelay>(
              *relay_context_, protocol::relay_socket_path(job_id_, node_hostname(agent.node)));
        ++counts_.accepted;
        if (ack->heartbeat_ms > 0) interval_ = std::chrono::milliseconds(ack->heartbeat_ms);
      } else if (const auto* down = std::get_if<protocol::RelayedDown>(&message)) {
        if (agent.relay) agent.relay->deliver(*down);
      } else if (const auto* orders = std::get_if<protocol::ImageOrders>(&message)) {
        // Copied at once: the answers the receiving agent would send in one turn of its loop.
        protocol::ImageOrdersDone done;
        for (const auto& order : orders->orders) done.done.push_back({order.order_id, true, {}});
        send(agent.socket, done, counts_);
      }
    }
  }

  Counts& counts_;
  zmq::context_t* relay_context_;  // null: no relays
  std::string job_id_;
  std::vector<Agent> agents_;
  std::atomic<bool> stop_{false};
  std::atomic<int> silent_node_{-1};
  std::chrono::milliseconds interval_{200};
  std::uint64_t sequence_ = 0;
  std::thread thread_;
};

// The ranks of the slice: they answer the checkpoint protocol at once.
class FakeRanks {
 public:
  // `relayed`: each rank talks to its node's agent's relay; what the front end handles is then
  // counted by the agents.
  FakeRanks(const ScaleOptions& options, const Link& link, NodeSlice nodes, Counts& counts, bool relayed)
      : options_(options), counts_(relayed ? relayed_counts_ : counts), accepted_(counts.accepted) {
    for (int node = nodes.first; node < nodes.end; ++node)
      for (int i = 0; i < options_.ranks_per_node; ++i) {
        const int rank = node * options_.ranks_per_node + i;
        if (rank >= options_.ranks) continue;
        ranks_.push_back({rank, node, relayed ? open_relayed(link, node) : link.open(), 0, 0, {}});
      }
    for (auto& fake : ranks_)
      send(fake.socket,
           protocol::RegisterRank{link.job_id, link.credential.secret, fake.rank, options_.ranks, getpid(),
                                  node_hostname(fake.node), "openmpi", 0.0},
           counts_);
    for (auto& fake : ranks_) items_.push_back({fake.socket.handle(), 0, ZMQ_POLLIN, 0});
  }

  // Serves the ranks until `count` agents and ranks were accepted.
  void serve_until_accepted(std::size_t count) {
    while (accepted_ < count) {
      zmq::poll(items_.data(), items_.size(), std::chrono::milliseconds(50));
      for (std::size_t i = 0; i < ranks_.size(); ++i)
        if (items_[i].revents & ZMQ_POLLIN) receive(ranks_[i]);
    }
  }

  // Serves the ranks until `commands` has a line (or closed); says "ready" on `answers` once, as
  // soon as `expected` agents and ranks were accepted.
  void serve_until_command(int commands, int answers, std::size_t expected) {
    items_.push_back({nullptr, commands, ZMQ_POLLIN, 0});
    for (;;) {
      zmq::poll(items_.data(), items_.size(), std::chrono::milliseconds(50));
      for (std::size_t i = 0; i < ranks_.size(); ++i)
        if (items_[i].revents & ZMQ_POLLIN) receive(ranks_[i]);
      if (!told_ready_ && accepted_ == expected) {
        told_ready_ = true;
        write_line(answers, "ready");
      }
      if (items_.back().revents & (ZMQ_POLLIN | ZMQ_POLLERR)) break;
    }
    items_.pop_back();
  }

 private:
  struct Rank {
    int rank = 0;
    int node = 0;
    zmq::socket_t socket;
    std::uint64_t serial = 0;
    std::uint64_t epochs = 0;  // images written so far
    std::string epoch_dir;
  };

  void receive(Rank& fake) {
    zmq::message_t frame;
    while (fake.socket.recv(frame, zmq::recv_flags::dontwait)) {
      ++counts_.received;
      const protocol::Message message = protocol::decode(frame.to_string_view());
      if (const auto* ack = std::get_if<protocol::RegisterAck>(&message)) {
        if (!ack->accepted) throw std::runtime_error("rank " + std::to_string(fake.rank) + " refused: " + ack->reason);
        ++accepted_;
      } else if (const auto* prepare = std::get_if<protocol::CheckpointPrepare>(&message)) {
        // The control thread's report at once: stopped at a call boundary, no targets known yet.
        fake.epoch_dir = prepare->epoch_dir;
        std::error_code ignored;  // a node-local directory is the rank's to make, as the shim does
        std::filesystem::create_directories(fake.epoch_dir, ignored);
        send(
            fake.socket,
            protocol::CutReport{prepare->epoch, fake.rank, protocol::CutState::parked, 0, 0, ++fake.serial, {{1, 100}}},
            counts_);
      } else if (const auto* targets = std::get_if<protocol::CutTargets>(&message)) {
        // Parked exactly at the targets; the round's "mover" (one rank per round) has meanwhile
        // entered a collective on a communicator of its own, so the targets move once more.
        std::vector<protocol::CommCount> counts = targets->targets;
        const bool mover = static_cast<int>(targets->round % static_cast<std::uint64_t>(options_.ranks)) == fake.rank;
        if (mover && targets->round < static_cast<std::uint64_t>(options_.cut_rounds))
          counts.push_back({1000 + targets->round, 1});
        send(fake.socket,
             protocol::CutReport{targets->epoch, fake.rank, protocol::CutState::parked, targets->round, 0,
                                 ++fake.serial, counts},
             counts_);
      } else if (const auto* go = std::get_if<protocol::CutGo>(&message)) {
        send(fake.socket, write_image(fake, go->epoch), counts_);
      }
      // QueryStatus, CheckpointRelease, CheckpointResume: nothing to do.
    }
  }

  protocol::ImageWritten write_image(Rank& fake, std::uint64_t epoch) {
    protocol::ImageWritten written;
    written.epoch = epoch;
    written.logical_rank = fake.rank;
    written.path = fake.epoch_dir + "/rank-" + std::to_string(fake.rank) + ".img";
    written.hostname = node_hostname(fake.node);
    const std::string image(options_.image_bytes, '\0');
    const int fd = ::open(written.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    written.ok = fd >= 0 && ::write(fd, image.data(), image.size()) == static_cast<ssize_t>(image.size());
    if (fd >= 0) ::close(fd);
    if (!written.ok) written.error = "cannot write " + written.path;
    written.size = image.size();
    written.traffic = traffic_row(options_, fake.rank, ++fake.epochs).partners;
    written.compute_seconds = 1.0;
    return written;
  }

  static zmq::socket_t open_relayed(const Link& link, int node) {
    zmq::socket_t socket(*link.context, zmq::socket_type::dealer);
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::sndhwm, 0);
    socket.set(zmq::sockopt::rcvhwm, 0);
    socket.connect("ipc://" + protocol::relay_socket_path(link.job_id, node_hostname(node)));
    return socket;
  }

  const ScaleOptions& options_;
  Counts relayed_counts_;  // traffic between the ranks and their relays: not the front end's
  Counts& counts_;
  std::atomic<std::size_t>& accepted_;
  std::vector<Rank> ranks_;
  std::vector<zmq::pollitem_t> items_;
  bool told_ready_ = false;
};

}  // namespace

std::string node_id(int index) { return "n" + std::to_string(index + 1); }
std::string node_hostname(int index) { return "fake-" + node_id(index); }

int run_fake_nodes(const ScaleOptions& options, NodeSlice nodes, int commands, int answers) {
  try {
    zmq::context_t context(1);
    // Thousands of sockets in one context; the default limit is 1,023.
    context.set(zmq::ctxopt::max_sockets, 60000);
    zmq::context_t agent_context(1);
    agent_context.set(zmq::ctxopt::max_sockets, 60000);
    Counts counts;
    std::unique_ptr<FakeAgents> agents;
    std::unique_ptr<FakeRanks> ranks;
    std::size_t expected = 0;
    for (;;) {
      const std::string line = read_line(commands);
      std::istringstream words(line);
      std::string verb;
      words >> verb;
      if (verb == "connect") {
        std::string endpoint, job_id, credential_text;
        words >> endpoint >> job_id >> credential_text;
        const auto credential = protocol::parse_credential(credential_text);
        if (!credential) throw std::runtime_error("not a credential: " + credential_text);
        // Ranks first: the coordinator's I/O thread spends ~2 ms of CPU on each CURVE handshake,
        // and on a busy 2-core machine thousands of them delay heartbeats past the loss
        // threshold (bench/scale/README.md). Agents say hello once every rank is in, and have an
        // I/O thread and a thread of their own, so their heartbeats keep pace with the ranks'
        // work (answering the protocol, writing images).
        const int first_rank = nodes.first * options.ranks_per_node;
        const int end_rank = std::min(options.ranks, nodes.end * options.ranks_per_node);
        const auto node_count = static_cast<std::size_t>(nodes.end - nodes.first);
        const auto rank_count = static_cast<std::size_t>(end_rank - first_rank);
        const Link rank_link{&context, endpoint, job_id, *credential};
        const Link agent_link{&agent_context, endpoint, job_id, *credential};
        if (options.direct) {
          ranks = std::make_unique<FakeRanks>(options, rank_link, nodes, counts, false);
          ranks->serve_until_accepted(rank_count);
          agents = std::make_unique<FakeAgents>(agent_link, nodes, counts, nullptr, options.node_dir);
        } else {
          // The ranks connect to their agents' relays, which exist once the agents are accepted.
          agents = std::make_unique<FakeAgents>(agent_link, nodes, counts, &context, options.node_dir);
          while (counts.accepted < node_count) std::this_thread::sleep_for(std::chrono::milliseconds(5));
          ranks = std::make_unique<FakeRanks>(options, rank_link, nodes, counts, true);
        }
        expected = node_count + rank_count;
      } else if (verb == "counts") {
        write_line(answers, "counts " + std::to_string(counts.sent) + " " + std::to_string(counts.received) + " " +
                                std::to_string(counts.heartbeats));
      } else if (verb == "lose") {
        int node = -1;
        words >> node;
        if (agents) agents->silence(node);
      } else {  // "quit", or the pipe closed
        agents.reset();
        ranks.reset();
        write_line(answers, "counts " + std::to_string(counts.sent) + " " + std::to_string(counts.received) + " " +
                                std::to_string(counts.heartbeats));
        return 0;
      }
      ranks->serve_until_command(commands, answers, expected);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scale harness worker: %s\n", e.what());
    return 1;
  }
}

}  // namespace yadokari::bench::scale
