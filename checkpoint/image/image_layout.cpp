#include "checkpoint/image/image_layout.hpp"

namespace yadokari::image {

std::string to_string(ImageLayout layout) { return layout == ImageLayout::dmtcp ? "dmtcp" : "yadokari"; }

std::optional<ImageLayout> image_layout_from_string(std::string_view name) {
  if (name == "yadokari") return ImageLayout::yadokari;
  if (name == "dmtcp") return ImageLayout::dmtcp;
  return std::nullopt;
}

}  // namespace yadokari::image
