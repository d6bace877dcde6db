#include "frontend/node_local_images.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "frontend/frontend_error.hpp"
#include "storage/epoch_store.hpp"
#include "storage/storage_error.hpp"

namespace yadokari::frontend {
namespace {

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// Serves the coordinator (heartbeats, relayed chunks) until every order is answered; each order
// has a deadline, so this ends.
std::map<std::uint64_t, protocol::ImageOrderDone> wait_for(control::Coordinator& coordinator,
                                                           const std::vector<std::uint64_t>& ids) {
  std::map<std::uint64_t, protocol::ImageOrderDone> done;
  for (;;) {
    for (const auto id : ids)
      if (!done.count(id))
        if (auto result = coordinator.take_image_order_result(id)) done.emplace(id, std::move(*result));
    if (done.size() == ids.size()) return done;
    coordinator.poll(std::chrono::milliseconds(10));
  }
}

std::set<std::string> live_nodes(const control::Coordinator& coordinator, const std::set<std::string>& lost) {
  std::set<std::string> live;
  for (const auto& node : coordinator.nodes())
    if ((node.state == "alive" || node.state == "suspect") && !lost.count(node.node)) live.insert(node.node);
  return live;
}

// The epoch's images by rank, every live holder of each verified; "" or why the epoch is unusable.
std::string check_epoch(const storage::Manifest& manifest, int world_size, const std::set<std::string>& live,
                        control::Coordinator& coordinator, NodeLocalEpoch& out) {
  if (manifest.images.size() != static_cast<std::size_t>(world_size))
    return std::to_string(manifest.images.size()) + " images for " + std::to_string(world_size) + " ranks";
  out.epoch = manifest.epoch;
  out.images.assign(static_cast<std::size_t>(world_size), {});
  out.verified_on.assign(static_cast<std::size_t>(world_size), {});
  for (const auto& image : manifest.images) {
    if (image.rank >= static_cast<std::uint32_t>(world_size)) return "an image of rank " + std::to_string(image.rank);
    out.images[image.rank] = image;
  }
  struct Verification {
    std::int32_t rank;
    std::string node;
  };
  std::map<std::uint64_t, Verification> orders;
  for (std::int32_t rank = 0; rank < world_size; ++rank) {
    const auto& image = out.images[static_cast<std::size_t>(rank)];
    bool any = false;
    for (const auto& node : image.nodes) {
      if (!live.count(node)) continue;
      any = true;
      const auto id = coordinator.order_image(
          node,
          protocol::ImageOrder{0, protocol::ImageOrderKind::verify, manifest.epoch, rank, image.size, image.xxh64, {}});
      orders.emplace(id, Verification{rank, node});
    }
    if (!any)
      return image.nodes.empty()
                 ? "rank " + std::to_string(rank) + "'s image is not on node-local storage"
                 : "rank " + std::to_string(rank) + "'s image was only on lost node(s) " + joined(image.nodes, ", ");
  }
  std::vector<std::uint64_t> ids;
  for (const auto& [id, order] : orders) ids.push_back(id);
  std::map<std::int32_t, std::vector<std::string>> errors;
  for (const auto& [id, done] : wait_for(coordinator, ids)) {
    const Verification& order = orders.at(id);
    if (done.ok)
      out.verified_on[static_cast<std::size_t>(order.rank)].push_back(order.node);
    else
      errors[order.rank].push_back(done.error);
  }
  for (std::int32_t rank = 0; rank < world_size; ++rank)
    if (out.verified_on[static_cast<std::size_t>(rank)].empty())
      return "rank " + std::to_string(rank) + ": " + joined(errors[rank], "; ");
  return {};
}

}  // namespace

NodeLocalEpoch choose_node_local_epoch(const std::filesystem::path& ckpt_dir, int world_size,
                                       control::Coordinator& coordinator, const std::set<std::string>& lost) {
  const storage::EpochStore store(ckpt_dir);
  const std::set<std::string> live = live_nodes(coordinator, lost);
  std::vector<std::string> passed_over;  // "epoch 4: why"
  auto committed = store.committed_epochs();
  for (auto epoch = committed.rbegin(); epoch != committed.rend(); ++epoch) {
    const std::string epoch_text = "epoch " + std::to_string(*epoch);
    std::string problem;
    NodeLocalEpoch chosen;
    try {
      const auto manifest = store.read_manifest(*epoch);
      problem = manifest ? check_epoch(*manifest, world_size, live, coordinator, chosen) : "MANIFEST is missing";
    } catch (const storage::StorageError& e) {
      problem = e.what();
    }
    if (!problem.empty()) {
      passed_over.push_back(epoch_text + ": " + problem);
      continue;
    }
    for (const auto& line : passed_over) {
      const auto colon = line.find(": ");
      chosen.notes.push_back(line.substr(0, colon) + " is not usable (" + line.substr(colon + 2) + "); using " +
                             epoch_text);
    }
    return chosen;
  }
  throw FrontendError(ErrorKind::failure, "no committed epoch has a good copy of every rank's image on a live node" +
                                              (passed_over.empty() ? std::string(" (none is committed)")
                                                                   : " (" + joined(passed_over, "; ") + ")"));
}

void stage_node_local_images(const NodeLocalEpoch& chosen, const std::vector<std::string>& target_node,
                             control::Coordinator& coordinator) {
  struct Copy {
    std::int32_t rank;
    std::size_t source;  // index into verified_on[rank]
  };
  std::map<std::int32_t, std::vector<std::string>> errors;
  std::vector<Copy> wanted;
  for (std::size_t rank = 0; rank < target_node.size(); ++rank) {
    const auto& holders = chosen.verified_on[rank];
    if (std::find(holders.begin(), holders.end(), target_node[rank]) == holders.end())
      wanted.push_back({static_cast<std::int32_t>(rank), 0});
  }
  // Every copy at once; a failed one is tried again from the rank's next good copy.
  while (!wanted.empty()) {
    std::map<std::uint64_t, Copy> orders;
    for (const auto& copy : wanted) {
      const auto rank = static_cast<std::size_t>(copy.rank);
      const auto& image = chosen.images[rank];
      const auto id =
          coordinator.order_image(chosen.verified_on[rank][copy.source],
                                  protocol::ImageOrder{0, protocol::ImageOrderKind::copy, chosen.epoch, copy.rank,
                                                       image.size, image.xxh64, target_node[rank]});
      orders.emplace(id, copy);
    }
    std::vector<std::uint64_t> ids;
    for (const auto& [id, copy] : orders) ids.push_back(id);
    wanted.clear();
    for (const auto& [id, done] : wait_for(coordinator, ids)) {
      Copy copy = orders.at(id);
      const auto rank = static_cast<std::size_t>(copy.rank);
      if (done.ok) {
        std::fprintf(stderr, "yadokari: staged rank %d's image of epoch %llu from %s to %s\n", copy.rank,
                     static_cast<unsigned long long>(chosen.epoch), chosen.verified_on[rank][copy.source].c_str(),
                     target_node[rank].c_str());
        continue;
      }
      errors[copy.rank].push_back(done.error);
      if (++copy.source < chosen.verified_on[static_cast<std::size_t>(copy.rank)].size()) {
        wanted.push_back(copy);
        continue;
      }
      throw FrontendError(ErrorKind::failure, "cannot copy rank " + std::to_string(copy.rank) + "'s image of epoch " +
                                                  std::to_string(chosen.epoch) + " to node " +
                                                  target_node[static_cast<std::size_t>(copy.rank)] + ": " +
                                                  joined(errors[copy.rank], "; "));
    }
  }
}

}  // namespace yadokari::frontend
