#pragma once
// How `yadokari inspect` shows an image DMTCP wrote: its process and a table of its memory areas,
// or the same as JSON (docs/formats/dmtcp-image.md).
#include <nlohmann/json.hpp>
#include <string>

#include "checkpoint/image/dmtcp_image.hpp"

namespace yadokari::cli {

std::string dmtcp_text(const std::string& path, const image::DmtcpImage& image);
nlohmann::json dmtcp_json(const std::string& path, const image::DmtcpImage& image);

}  // namespace yadokari::cli
