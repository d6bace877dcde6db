#pragma once
// A job's checkpointing, as the front end runs it (resolved from flags and YADOKARI_* variables
// by cli/checkpoint_options.hpp).
#include <cstdint>
#include <filesystem>
#include <optional>

namespace yadokari::frontend {

struct CheckpointSettings {
  std::optional<std::filesystem::path> dir;  // none: checkpointing is off; else as given
  double interval_seconds = 0.0;             // 0: only on request
  std::optional<std::uint64_t> stop_after_epoch;
  unsigned keep = 2;
  int compression = 0;
  // A full image every N epochs of a rank process, increments in between (1: never); none: the
  // ranks' default (YADOKARI_CKPT_FULL_EVERY, pmpi-layer/src/cut/incremental_image.hpp).
  std::optional<unsigned> full_every;
  // The images' layout, "yadokari" or "dmtcp" (docs/formats/dmtcp-image.md); none: the ranks'
  // default (YADOKARI_IMAGE_FORMAT, pmpi-layer/src/cut/image_layout_setting.hpp).
  std::optional<std::string> image_format;
  // Node-local image storage, the same absolute path on every node; empty: images in `dir`.
  std::filesystem::path node_dir;
};

}  // namespace yadokari::frontend
