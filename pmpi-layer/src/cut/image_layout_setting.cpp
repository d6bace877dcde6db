#include "pmpi-layer/src/cut/image_layout_setting.hpp"

#include <cstdlib>

#include "common/parameters.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"

namespace yadokari::shim {

yadokari::image::ImageLayout image_layout() {
  static const yadokari::image::ImageLayout value = [] {
    const char* text = std::getenv(yadokari::parameters::kImageFormat);
    if (!text || !*text) return yadokari::image::ImageLayout::yadokari;
    if (const auto layout = yadokari::image::image_layout_from_string(text)) return *layout;
    print_line("yadokari: YADOKARI_IMAGE_FORMAT must be yadokari or dmtcp, not '%s'; images are in yadokari's format",
               text);
    return yadokari::image::ImageLayout::yadokari;
  }();
  return value;
}

}  // namespace yadokari::shim
