#pragma once
// The automatic restart's epoch choice and stage phase when images live on the nodes
// (--node-dir): the front end cannot read them, so it asks the live nodes' agents to verify their
// copies and to copy an image to the node a rank is placed on when that node has none.
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "control/coordinator.hpp"
#include "storage/manifest.hpp"

namespace yadokari::frontend {

struct NodeLocalEpoch {
  std::uint64_t epoch = 0;
  std::vector<storage::ManifestImage> images;         // by logical rank
  std::vector<std::vector<std::string>> verified_on;  // by logical rank: live nodes with a good copy
  // One per newer committed epoch passed over: "epoch 4 is not usable (rank 2: ...); using epoch 3".
  std::vector<std::string> notes;
};

// The newest committed epoch in `ckpt_dir` of which every rank's image has a verified copy on a
// node outside `lost` whose agent is live. Throws FrontendError(failure) "no committed epoch has a good
// copy of every rank's image on a live node (epoch 3: rank 2's image was only on lost node(s) n2,
// n3; ...)".
NodeLocalEpoch choose_node_local_epoch(const std::filesystem::path& ckpt_dir, int world_size,
                                       control::Coordinator& coordinator, const std::set<std::string>& lost);

// Makes sure node `target_node[L]` holds rank L's image: copies it from a node that verified it
// when it does not. Throws FrontendError(failure) naming the rank and every copy that failed.
void stage_node_local_images(const NodeLocalEpoch& chosen, const std::vector<std::string>& target_node,
                             control::Coordinator& coordinator);

}  // namespace yadokari::frontend
