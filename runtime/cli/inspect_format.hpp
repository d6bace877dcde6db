#pragma once
// How `yadokari inspect` shows an image: header, binaries and a table of areas, or the same as JSON.
#include <nlohmann/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/image/image_reader.hpp"

namespace yadokari::cli {

// One image of an increment's chain, base first; `size` is empty when the file is not there.
struct ChainLink {
  std::uint64_t epoch = 0;
  std::string path;
  bool increment = false;
  std::optional<std::uint64_t> size;
};

// Strings from an image (area names are the mapped files' paths, job ids, binaries' paths) printed
// as they are could drive the reader's terminal: control bytes are shown as \xNN.
std::string shown(const std::string& text);

// Rows of cells as aligned columns, each cell after two spaces, right-aligned where asked; no
// trailing spaces. Every row has one cell per entry of `right_aligned`.
std::string aligned_table(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right_aligned);

// `chain`: the images an increment is built on and itself (empty for a full image).
std::string inspect_text(const image::ImageReader& image, bool verified, const std::vector<ChainLink>& chain = {});
nlohmann::json inspect_json(const image::ImageReader& image, bool verified, const std::vector<ChainLink>& chain = {});

}  // namespace yadokari::cli
