#pragma once
// Image copies straight from one node's agent to another's (--node-dir). Each agent with
// node-local storage takes copies on a TCP port of its own (ImagePort: CURVE with a keypair of its
// own, announced in its AgentHello), and sends the chunks of a copy order to the port the order
// names (ImageSenders). The coordinator only says who copies what to whom: at 1,024 nodes the
// images of a whole job must not pass through its one socket (runtime/README.md, "Node-local
// images and replicas").
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <zmq.hpp>

#include "protocol/codec.hpp"
#include "protocol/curve.hpp"

namespace yadokari::agent {

class ImagePort {
 public:
  // Binds an ephemeral TCP port on every address of this node; throws zmq::error_t if it cannot.
  explicit ImagePort(zmq::context_t& context);

  std::int32_t port() const { return port_; }
  const std::string& public_key() const { return keys_.public_key; }
  zmq::socket_t& socket() { return socket_; }

  // The next chunk that came in, if any. A message that is not a chunk for `node` with the job's
  // `secret` is dropped and described in `refused` (empty when nothing was refused).
  std::optional<protocol::ImageChunk> take(const std::string& secret, const std::string& node, std::string& refused);

 private:
  protocol::CurveKeypair keys_;
  zmq::socket_t socket_;
  std::int32_t port_ = 0;
};

class ImageSenders {
 public:
  explicit ImageSenders(zmq::context_t& context) : context_(context) {}
  ~ImageSenders();
  ImageSenders(const ImageSenders&) = delete;
  ImageSenders& operator=(const ImageSenders&) = delete;

  // Queues `chunk` for the image port at `endpoint` (whose CURVE key is `key`); one connection per
  // port, kept while copies to it may still be under way (`busy_for` from now).
  void send(const std::string& endpoint, const std::string& key, const protocol::ImageChunk& chunk,
            std::chrono::steady_clock::duration busy_for);

  // Closes the connections whose copies had their time: what a lost node never took is dropped
  // instead of held in memory for good.
  void close_idle();

 private:
  struct Link {
    zmq::socket_t socket;
    std::chrono::steady_clock::time_point busy_until;
  };
  zmq::context_t& context_;
  std::map<std::string, Link> links_;  // by endpoint
};

}  // namespace yadokari::agent
