#pragma once
// Which layout this rank writes its images in (YADOKARI_IMAGE_FORMAT, which the front end passes
// on from --image-format): yadokari's own, or DMTCP's (docs/formats/dmtcp-image.md).
#include "checkpoint/image/image_layout.hpp"

namespace yadokari::shim {

// Read once. An unknown value (set by hand: the front end checks the flag) says so and keeps yadokari's own.
yadokari::image::ImageLayout image_layout();

}  // namespace yadokari::shim
