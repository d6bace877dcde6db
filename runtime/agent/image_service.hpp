#pragma once
// A node agent's side of node-local images (--node-dir): the coordinator's orders (verify, copy to
// another node), copies other agents send to this node's image port, pruning of old epochs, and
// the answers, which go to the coordinator in batches (one message per turn of the agent's loop,
// not one per image). A node without storage answers every order with why.
#include <functional>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "runtime/agent/image_links.hpp"
#include "runtime/agent/node_images.hpp"
#include "protocol/codec.hpp"

namespace yadokari::agent {

class ImageService {
 public:
  using Send = std::function<void(const protocol::Message&)>;
  // `node_dir` empty: no storage. `with_port`: take copies on an image port (if one can be opened;
  // if not, one line on stderr and copies to this node come through the coordinator).
  ImageService(zmq::context_t& context, const std::filesystem::path& node_dir, const std::string& job_id,
               std::string node, std::string secret, bool with_port, Send to_coordinator);

  // For the agent's hello: the image port (0: none) and its key.
  std::int32_t port() const { return port_ ? port_->port() : 0; }
  std::string port_key() const { return port_ ? port_->public_key() : std::string(); }
  // Polled by the agent's loop (null: none).
  zmq::socket_t* port_socket() { return port_ ? &port_->socket() : nullptr; }

  // Whether `message` is one of the coordinator's for images; if so, it is served.
  bool serve(const protocol::Message& message);
  // Takes what other agents sent to the image port, up to a few chunks (the rest at the next turn).
  void serve_port();
  // Sends the answers gathered since the last call, and closes connections to other agents'
  // ports whose copies had their time.
  void flush();

 private:
  void order(const protocol::ImageOrder& order);
  void chunk(const protocol::ImageChunk& chunk);
  void answer(protocol::ImageOrderDone done) { answers_.push_back(std::move(done)); }

  std::string node_;
  std::string secret_;
  std::optional<NodeImages> images_;
  std::optional<ImagePort> port_;
  ImageSenders senders_;
  Send to_coordinator_;
  std::vector<protocol::ImageOrderDone> answers_;
};

}  // namespace yadokari::agent
