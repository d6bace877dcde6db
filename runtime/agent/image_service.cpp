#include "runtime/agent/image_service.hpp"

#include <cstdio>

namespace yadokari::agent {

ImageService::ImageService(zmq::context_t& context, const std::filesystem::path& node_dir, const std::string& job_id,
                           std::string node, std::string secret, bool with_port, Send to_coordinator)
    : node_(std::move(node)),
      secret_(std::move(secret)),
      senders_(context),
      to_coordinator_(std::move(to_coordinator)) {
  if (node_dir.empty()) return;
  images_.emplace(node_dir, job_id, node_);
  if (!with_port) return;
  try {
    port_.emplace(context);
  } catch (const zmq::error_t& e) {
    std::fprintf(stderr,
                 "yadokari agent (node %s): cannot open a port for image copies (%s); they come through the "
                 "coordinator\n",
                 node_.c_str(), e.what());
  }
}

bool ImageService::serve(const protocol::Message& message) {
  if (const auto* one = std::get_if<protocol::ImageOrder>(&message))
    order(*one);
  else if (const auto* several = std::get_if<protocol::ImageOrders>(&message))
    for (const auto& each : several->orders) order(each);
  else if (const auto* piece = std::get_if<protocol::ImageChunk>(&message))
    chunk(*piece);
  else if (const auto* keep = std::get_if<protocol::KeepEpochs>(&message)) {
    if (images_) images_->keep_only(keep->epochs);
  } else
    return false;
  return true;
}

// A copy goes straight to the receiving agent's image port when the order names one, else through
// the coordinator; it is answered by the receiving agent.
void ImageService::order(const protocol::ImageOrder& order) {
  std::string problem = "node " + node_ + " keeps no images (its agent has no --node-dir)";
  if (images_ && order.kind == protocol::ImageOrderKind::verify)
    problem = images_->problem_with(order.epoch, order.rank, order.size, order.xxh64);
  else if (images_)
    problem = images_->send_copy(order, [&](protocol::ImageChunk& piece) {
      piece.secret = secret_;
      if (order.to_endpoint.empty())
        to_coordinator_(piece);
      else
        senders_.send(order.to_endpoint, order.to_key, piece, protocol::copy_timeout(order.size));
    });
  if (!problem.empty() || order.kind == protocol::ImageOrderKind::verify)
    answer({order.order_id, problem.empty(), problem});
}

// A chunk of a copy to this node, through the coordinator or on the image port.
void ImageService::chunk(const protocol::ImageChunk& piece) {
  if (!images_) {
    if (piece.last || piece.offset == 0)
      answer({piece.order_id, false, "node " + node_ + " keeps no images (its agent has no --node-dir)"});
    return;
  }
  if (auto done = images_->receive(piece)) answer(std::move(*done));
}

// A few chunks per turn of the agent's loop: a large copy arriving must not hold back the
// coordinator's orders (a stop, the next copy) for as long as it takes to write.
void ImageService::serve_port() {
  constexpr int kChunksPerTurn = 16;  // 4 MiB
  if (!port_) return;
  for (int taken = 0; taken < kChunksPerTurn; ++taken) {
    std::string refused;
    const auto piece = port_->take(secret_, node_, refused);
    if (!refused.empty())
      std::fprintf(stderr, "yadokari agent (node %s): ignored %s on its image port\n", node_.c_str(), refused.c_str());
    if (piece)
      chunk(*piece);
    else if (refused.empty())
      return;
  }
}

void ImageService::flush() {
  for (std::size_t from = 0; from < answers_.size(); from += protocol::ImageOrdersDone::kMaxAnswers) {
    const auto to = std::min(answers_.size(), from + protocol::ImageOrdersDone::kMaxAnswers);
    to_coordinator_(protocol::ImageOrdersDone{
        {answers_.begin() + static_cast<std::ptrdiff_t>(from), answers_.begin() + static_cast<std::ptrdiff_t>(to)}});
  }
  answers_.clear();
  senders_.close_idle();
}

}  // namespace yadokari::agent
