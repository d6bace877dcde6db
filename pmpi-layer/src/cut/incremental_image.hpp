// Incremental images (checkpoint/memory/README.md, "Incremental images"): whether this rank's next
// image is full or an increment of its previous one, and what the increment needs to know about
// that parent. The written pages themselves come from the memory layer's tracking
// (memory/written_pages.hpp), collected by the image sink in the rank before the writer forks.
#pragma once

#include "checkpoint/image/area_kind.hpp"
#include "checkpoint/image/image_header.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace yadokari::shim::incremental_image {

// YADOKARI_CKPT_FULL_EVERY (`--full-every`): a full image every N epochs of a process, increments
// in between; 1 never writes increments.
inline constexpr unsigned kDefaultFullEvery = 8;
unsigned full_every();

// An area of the parent image, as an increment's delta area names it.
struct ParentArea {
  yadokari::image::AreaKind kind{};
  std::string name;
  std::uint64_t address = 0;
  std::uint64_t length = 0;
};

struct Plan {
  std::optional<yadokari::image::ParentImage> parent;  // unset: a full image
  std::vector<ParentArea> parent_areas;

  // The parent's length of the area (kind, name, address); 0 when the parent has none.
  std::uint64_t parent_length(yadokari::image::AreaKind kind, const std::string& name, std::uint64_t address) const;
};

// Before the image of `epoch` is opened in `epoch_dir`: an increment when tracking works, the
// previous image of this process is the parent epoch's (committed: its MANIFEST exists in
// YADOKARI_CKPT_DIR) and readable, and fewer than full_every() images are in its chain.
Plan plan(std::uint64_t epoch, const std::string& epoch_dir, int rank);

// In the rank, once the written pages were collected for the image of `epoch` (right before the
// memory is copied): the tracking now lists the writes since that image, so it is the next
// image's candidate parent. `increment`: that image is one (its chain grows by one).
void collected(std::uint64_t epoch, bool increment);

// Tracking is unavailable: logged once per process with the reason; every image is full.
void tracking_unavailable(const std::string& why);

}  // namespace yadokari::shim::incremental_image
