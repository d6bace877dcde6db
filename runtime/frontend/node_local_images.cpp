#include "runtime/frontend/node_local_images.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "runtime/frontend/frontend_error.hpp"
#include "checkpoint/storage/epoch_store.hpp"
#include "checkpoint/storage/storage_error.hpp"

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

// The images rank `rank`'s image of `manifest` is built on, parent first (empty for a full image);
// "" or why the chain is unusable.
std::string chain_of(const storage::EpochStore& store, const storage::Manifest& manifest, std::int32_t rank,
                     std::vector<NodeLocalLink>& links) {
  std::uint64_t at = manifest.epoch;
  std::uint64_t parent = 0;
  for (const auto& image : manifest.images)
    if (image.rank == static_cast<std::uint32_t>(rank)) parent = image.parent_epoch;
  while (parent != 0) {
    const std::string link = "rank " + std::to_string(rank) + "'s image of epoch " + std::to_string(at) +
                             " is an increment of epoch " + std::to_string(parent);
    if (parent >= at) return link + ", which is not older";
    const auto older = store.read_manifest(parent);
    if (!older) return link + ", which is not committed";
    const storage::ManifestImage* found = nullptr;
    for (const auto& image : older->images)
      if (image.rank == static_cast<std::uint32_t>(rank)) found = &image;
    if (!found) return link + ", whose MANIFEST lists no image of that rank";
    links.push_back({parent, *found, {}});
    at = parent;
    parent = found->parent_epoch;
  }
  return {};
}

// The epoch's images by rank (and the images increments are built on), every live holder of each
// verified; "" or why the epoch is unusable.
std::string check_epoch(const storage::EpochStore& store, const storage::Manifest& manifest, int world_size,
                        const std::set<std::string>& live, control::Coordinator& coordinator, NodeLocalEpoch& out) {
  if (manifest.images.size() != static_cast<std::size_t>(world_size))
    return std::to_string(manifest.images.size()) + " images for " + std::to_string(world_size) + " ranks";
  out.epoch = manifest.epoch;
  out.images.assign(static_cast<std::size_t>(world_size), {});
  out.verified_on.assign(static_cast<std::size_t>(world_size), {});
  out.parents.assign(static_cast<std::size_t>(world_size), {});
  for (const auto& image : manifest.images) {
    if (image.rank >= static_cast<std::uint32_t>(world_size)) return "an image of rank " + std::to_string(image.rank);
    out.images[image.rank] = image;
  }
  for (std::int32_t rank = 0; rank < world_size; ++rank)
    if (auto problem = chain_of(store, manifest, rank, out.parents[static_cast<std::size_t>(rank)]); !problem.empty())
      return problem;
  struct Verification {
    std::int32_t rank;
    std::size_t link;  // 0: the epoch's own image; i: parents[rank][i - 1]
    std::string node;
  };
  std::map<std::uint64_t, Verification> orders;
  for (std::int32_t rank = 0; rank < world_size; ++rank) {
    const auto& parents = out.parents[static_cast<std::size_t>(rank)];
    for (std::size_t link = 0; link <= parents.size(); ++link) {
      const auto& image = link == 0 ? out.images[static_cast<std::size_t>(rank)] : parents[link - 1].image;
      const std::uint64_t epoch = link == 0 ? manifest.epoch : parents[link - 1].epoch;
      const std::string whose =
          "rank " + std::to_string(rank) + "'s image" + (link == 0 ? "" : " of epoch " + std::to_string(epoch));
      bool any = false;
      for (const auto& node : image.nodes) {
        if (!live.count(node)) continue;
        any = true;
        const auto id = coordinator.order_image(
            node, protocol::ImageOrder{
                      0, protocol::ImageOrderKind::verify, epoch, rank, image.size, image.xxh64, {}, {}, {}});
        orders.emplace(id, Verification{rank, link, node});
      }
      if (!any)
        return image.nodes.empty() ? whose + " is not on node-local storage"
                                   : whose + " was only on lost node(s) " + joined(image.nodes, ", ");
    }
  }
  std::vector<std::uint64_t> ids;
  for (const auto& [id, order] : orders) ids.push_back(id);
  std::map<std::int32_t, std::vector<std::string>> errors;
  // By rank: for every node, how many of the rank's images it holds a good copy of.
  std::map<std::int32_t, std::map<std::string, std::size_t>> good;
  for (const auto& [id, done] : wait_for(coordinator, ids)) {
    const Verification& order = orders.at(id);
    if (!done.ok) {
      errors[order.rank].push_back(done.error);
      continue;
    }
    ++good[order.rank][order.node];
    if (order.link > 0)
      out.parents[static_cast<std::size_t>(order.rank)][order.link - 1].verified_on.push_back(order.node);
  }
  for (std::int32_t rank = 0; rank < world_size; ++rank) {
    const std::size_t links = out.parents[static_cast<std::size_t>(rank)].size() + 1;
    for (const auto& [node, count] : good[rank])
      if (count == links) out.verified_on[static_cast<std::size_t>(rank)].push_back(node);
    if (out.verified_on[static_cast<std::size_t>(rank)].empty())
      return "rank " + std::to_string(rank) + ": " +
             (errors[rank].empty() ? std::string("no live node holds a good copy of every image of its increment chain")
                                   : joined(errors[rank], "; "));
  }
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
      problem = manifest ? check_epoch(store, *manifest, world_size, live, coordinator, chosen) : "MANIFEST is missing";
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
    std::size_t link;    // 0: the epoch's own image; i: parents[rank][i - 1]
    std::size_t source;  // index into verified_on[rank]: a node with the whole chain
  };
  std::map<std::int32_t, std::vector<std::string>> errors;
  std::vector<Copy> wanted;
  for (std::size_t rank = 0; rank < target_node.size(); ++rank) {
    const auto& holders = chosen.verified_on[rank];
    if (std::find(holders.begin(), holders.end(), target_node[rank]) != holders.end()) continue;
    const auto r = static_cast<std::int32_t>(rank);
    wanted.push_back({r, 0, 0});
    const auto& parents = rank < chosen.parents.size() ? chosen.parents[rank] : std::vector<NodeLocalLink>{};
    for (std::size_t link = 1; link <= parents.size(); ++link) {
      const auto& has = parents[link - 1].verified_on;
      if (std::find(has.begin(), has.end(), target_node[rank]) == has.end()) wanted.push_back({r, link, 0});
    }
  }
  // Every copy at once; a failed one is tried again from the rank's next good copy.
  while (!wanted.empty()) {
    std::map<std::uint64_t, Copy> orders;
    for (const auto& copy : wanted) {
      const auto rank = static_cast<std::size_t>(copy.rank);
      const auto& link =
          copy.link == 0 ? NodeLocalLink{chosen.epoch, chosen.images[rank], {}} : chosen.parents[rank][copy.link - 1];
      const auto id = coordinator.order_image(chosen.verified_on[rank][copy.source],
                                              protocol::ImageOrder{0,
                                                                   protocol::ImageOrderKind::copy,
                                                                   link.epoch,
                                                                   copy.rank,
                                                                   link.image.size,
                                                                   link.image.xxh64,
                                                                   target_node[rank],
                                                                   {},
                                                                   {}});
      orders.emplace(id, copy);
    }
    std::vector<std::uint64_t> ids;
    for (const auto& [id, copy] : orders) ids.push_back(id);
    wanted.clear();
    for (const auto& [id, done] : wait_for(coordinator, ids)) {
      Copy copy = orders.at(id);
      const auto rank = static_cast<std::size_t>(copy.rank);
      const std::uint64_t epoch = copy.link == 0 ? chosen.epoch : chosen.parents[rank][copy.link - 1].epoch;
      if (done.ok) {
        std::fprintf(stderr, "yadokari: staged rank %d's image of epoch %llu from %s to %s\n", copy.rank,
                     static_cast<unsigned long long>(epoch), chosen.verified_on[rank][copy.source].c_str(),
                     target_node[rank].c_str());
        continue;
      }
      errors[copy.rank].push_back(done.error);
      if (++copy.source < chosen.verified_on[rank].size()) {
        wanted.push_back(copy);
        continue;
      }
      throw FrontendError(ErrorKind::failure, "cannot copy rank " + std::to_string(copy.rank) + "'s image of epoch " +
                                                  std::to_string(epoch) + " to node " + target_node[rank] + ": " +
                                                  joined(errors[copy.rank], "; "));
    }
  }
}

}  // namespace yadokari::frontend
