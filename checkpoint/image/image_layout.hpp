#pragma once
// The two on-disk layouts of a rank's image (docs/formats/image.md, docs/formats/dmtcp-image.md).
// The reader tells them apart by the file's first bytes; the writer is told which to write.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace yadokari::image {

enum class ImageLayout : std::uint8_t {
  yadokari = 0,  // yadokari's own: header, area records with their data, end record
  dmtcp = 1,     // DMTCP's layout for the memory areas, yadokari's records after its end-of-areas record
};

// "yadokari" / "dmtcp": the names of --image-format and of the MANIFEST's "layout".
std::string to_string(ImageLayout layout);
std::optional<ImageLayout> image_layout_from_string(std::string_view name);

}  // namespace yadokari::image
