#pragma once
// The automatic restart's epoch choice and stage phase when images live on the nodes
// (--node-dir): the front end cannot read them, so it asks the live nodes' agents to verify their
// copies and to copy an image to the node a rank is placed on when that node has none.
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "runtime/control/coordinator.hpp"
#include "checkpoint/storage/manifest.hpp"

namespace yadokari::frontend {

// An image an increment is built on: a rank's image of an earlier epoch.
struct NodeLocalLink {
  std::uint64_t epoch = 0;
  storage::ManifestImage image;
  std::vector<std::string> verified_on;  // live nodes with a good copy of it
};

struct NodeLocalEpoch {
  std::uint64_t epoch = 0;
  std::vector<storage::ManifestImage> images;  // by logical rank
  // By logical rank: live nodes with a good copy of the image and, for an increment, of every
  // image it is built on (a rank is restored from one node's copies).
  std::vector<std::vector<std::string>> verified_on;
  // By logical rank: the images an increment is built on, its parent first, back to the full one
  // (the MANIFESTs' parent_epoch); empty for a full image.
  std::vector<std::vector<NodeLocalLink>> parents;
  // One per newer committed epoch passed over: "epoch 4 is not usable (rank 2: ...); using epoch 3".
  std::vector<std::string> notes;
};

// The newest committed epoch in `ckpt_dir` of which every rank's image has a verified copy on a
// node outside `lost` whose agent is live. Throws FrontendError(failure) "no committed epoch has a good
// copy of every rank's image on a live node (epoch 3: rank 2's image was only on lost node(s) n2,
// n3; ...)".
NodeLocalEpoch choose_node_local_epoch(const std::filesystem::path& ckpt_dir, int world_size,
                                       control::Coordinator& coordinator, const std::set<std::string>& lost);

// Makes sure node `target_node[L]` holds rank L's image and every image it is built on: copies
// each one it lacks from a node that verified the whole chain. Throws FrontendError(failure) naming the rank and every copy that failed.
void stage_node_local_images(const NodeLocalEpoch& chosen, const std::vector<std::string>& target_node,
                             control::Coordinator& coordinator);

}  // namespace yadokari::frontend
