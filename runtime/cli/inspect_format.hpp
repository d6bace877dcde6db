#pragma once
// How `yadokari inspect` shows an image: header, binaries and a table of areas, or the same as JSON.
#include <nlohmann/json.hpp>
#include <string>

#include "image/image_reader.hpp"

namespace yadokari::cli {

std::string inspect_text(const image::ImageReader& image, bool verified);
nlohmann::json inspect_json(const image::ImageReader& image, bool verified);

}  // namespace yadokari::cli
