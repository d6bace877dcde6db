#include "pmpi-layer/src/cut/incremental_image.hpp"

#include "checkpoint/image/image_reader.hpp"
#include "pmpi-layer/src/cut/image_layout_setting.hpp"
#include "pmpi-layer/src/objects/world.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include "common/parameters.hpp"

namespace yadokari::shim::incremental_image {
namespace {

namespace fs = std::filesystem;
namespace img = yadokari::image;

// None of this is carried into an image: a restarted process starts without a parent, so its
// first image is full.
std::uint64_t g_last_epoch = 0;  // the image the tracking's next list is relative to; 0: none
unsigned g_chain_length = 0;     // images in that image's chain, the full one included
bool g_tracking_off = false;

bool committed(std::uint64_t epoch) {
  const char* dir = std::getenv(yadokari::parameters::kCkptDir);
  if (!dir || !*dir) return false;
  std::error_code error;
  return fs::exists(fs::path(dir) / std::to_string(epoch) / "MANIFEST", error);
}

}  // namespace

unsigned full_every() {
  static const unsigned value = [] {
    // DMTCP's layout holds whole areas only: every image is full.
    if (image_layout() == img::ImageLayout::dmtcp) return 1U;
    const char* text = std::getenv(yadokari::parameters::kCkptFullEvery);
    if (!text || !*text) return kDefaultFullEvery;
    unsigned n = 0;
    const auto [end, error] = std::from_chars(text, text + std::strlen(text), n);
    if (error != std::errc() || *end != '\0' || n < 1) {
      // The front end checks the flag; a bad value set by hand only costs space.
      print_line("yadokari: YADOKARI_CKPT_FULL_EVERY must be a whole number (1 or more), not '%s'; every image is full",
                 text);
      return 1U;
    }
    return n;
  }();
  return value;
}

std::uint64_t Plan::parent_length(img::AreaKind kind, const std::string& name, std::uint64_t address) const {
  for (const ParentArea& area : parent_areas)
    if (area.kind == kind && area.name == name && area.address == address) return area.length;
  return 0;
}

Plan plan(std::uint64_t epoch, const std::string& epoch_dir, int rank) {
  Plan plan;
  if (g_tracking_off || g_last_epoch == 0 || g_last_epoch >= epoch || g_chain_length >= full_every()) return plan;
  // An image that was not committed (a rank failed, the writer died) cannot be a parent: its
  // epoch may be gone or written again.
  if (!committed(g_last_epoch)) return plan;
  const fs::path parent =
      fs::path(epoch_dir).parent_path() / std::to_string(g_last_epoch) / ("rank-" + std::to_string(rank) + ".img");
  try {
    const img::ImageReader reader(parent.string());
    if (reader.header().epoch != g_last_epoch) return plan;
    plan.parent = img::ParentImage{g_last_epoch, reader.header_checksum()};
    for (const img::AreaRecord& area : reader.areas())
      plan.parent_areas.push_back({area.kind, area.name, area.address, area.length});
  } catch (const std::exception& e) {
    print_line("yadokari: rank %d writes a full image for epoch %llu: its previous image %s cannot be read: %s", rank,
               static_cast<unsigned long long>(epoch), parent.c_str(), e.what());
    plan = Plan{};
  }
  return plan;
}

void collected(std::uint64_t epoch, bool increment) {
  g_last_epoch = epoch;
  g_chain_length = increment ? g_chain_length + 1 : 1;
}

void tracking_unavailable(const std::string& why) {
  if (!g_tracking_off)
    print_line("yadokari: rank %d writes full images only: dirty-page tracking is unavailable: %s",
               identity().logical_rank, why.c_str());
  g_tracking_off = true;
  g_last_epoch = 0;
  g_chain_length = 0;
}

}  // namespace yadokari::shim::incremental_image
