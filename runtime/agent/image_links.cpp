#include "runtime/agent/image_links.hpp"

#include <charconv>
#include <zmq_addon.hpp>

#include "protocol/secret.hpp"

namespace yadokari::agent {
namespace {

// Chunks are at most 256 KiB of image plus their fields.
constexpr std::int64_t kMaxMessageBytes = std::int64_t{1} << 20;

}  // namespace

ImagePort::ImagePort(zmq::context_t& context)
    : keys_(protocol::make_curve_keypair()), socket_(context, zmq::socket_type::router) {
  socket_.set(zmq::sockopt::linger, 0);
  socket_.set(zmq::sockopt::maxmsgsize, kMaxMessageBytes);
  // A copy arrives as a whole image's chunks at once; a dropped chunk would fail it.
  socket_.set(zmq::sockopt::rcvhwm, 0);
  socket_.set(zmq::sockopt::ipv6, 1);  // "*" is then every IPv4 and IPv6 address
  protocol::serve_with_curve(socket_, keys_);
  socket_.bind("tcp://*:0");
  const std::string endpoint = socket_.get(zmq::sockopt::last_endpoint);
  const std::string digits = endpoint.substr(endpoint.rfind(':') + 1);
  std::from_chars(digits.data(), digits.data() + digits.size(), port_);
}

std::optional<protocol::ImageChunk> ImagePort::take(const std::string& secret, const std::string& node,
                                                    std::string& refused) {
  refused.clear();
  std::vector<zmq::message_t> frames;
  if (!zmq::recv_multipart(socket_, std::back_inserter(frames), zmq::recv_flags::dontwait)) return std::nullopt;
  if (frames.size() != 2) {
    refused = "a message of " + std::to_string(frames.size()) + " frames";
    return std::nullopt;
  }
  std::string peer = "unknown peer";
  try {
    peer = protocol::plain_peer_address(frames[1].gets("Peer-Address"));
  } catch (const zmq::error_t&) {
  }
  try {
    if (protocol::decode_header(frames[1].to_string_view()) != protocol::MessageType::image_chunk) {
      refused = "a message from " + peer + " that is not an image chunk";
      return std::nullopt;
    }
    auto chunk = std::get<protocol::ImageChunk>(protocol::decode(frames[1].to_string_view()));
    if (!protocol::secrets_equal(chunk.secret, secret)) {
      refused = "an image chunk from " + peer + " without the job's secret";
      return std::nullopt;
    }
    if (chunk.to_node != node) {
      refused = "an image chunk from " + peer + " for node " + chunk.to_node;
      return std::nullopt;
    }
    return chunk;
  } catch (const protocol::ProtocolError& e) {
    refused = "a message from " + peer + ": " + e.what();
    return std::nullopt;
  }
}

ImageSenders::~ImageSenders() {
  // Queued chunks must not hold the agent's exit (the context waits for lingering sockets).
  for (auto& [endpoint, link] : links_) link.socket.set(zmq::sockopt::linger, 0);
}

void ImageSenders::send(const std::string& endpoint, const std::string& key, const protocol::ImageChunk& chunk,
                        std::chrono::steady_clock::duration busy_for) {
  auto link = links_.find(endpoint);
  if (link == links_.end()) {
    zmq::socket_t socket(context_, zmq::socket_type::dealer);
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::sndhwm, 0);  // a whole image is queued at once
    socket.set(zmq::sockopt::ipv6, 1);
    protocol::connect_with_curve(socket, key);
    socket.connect(endpoint);
    link = links_.emplace(endpoint, Link{std::move(socket), {}}).first;
  }
  link->second.busy_until = std::max(link->second.busy_until, std::chrono::steady_clock::now() + busy_for);
  const std::string bytes = protocol::encode(chunk);
  (void)link->second.socket.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
}

void ImageSenders::close_idle() {
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(links_, [now](const auto& entry) { return entry.second.busy_until < now; });
}

}  // namespace yadokari::agent
