#pragma once
// The MANIFEST of an epoch: written last, by the front end, only when every rank's image is
// durable. Its presence is what makes an epoch committed.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint/image/image_writer.hpp"

namespace yadokari::storage {

struct ManifestImage {
  std::uint32_t rank = 0;
  std::string file;         // name inside the epoch directory: rank-<L>.img
  std::uint64_t size = 0;   // bytes
  std::uint64_t xxh64 = 0;  // of the whole file
  // Node-local storage (--node-dir): the nodes holding a verified copy, the writer's first. Empty:
  // the image is in the epoch directory next to the MANIFEST.
  std::vector<std::string> nodes{};
  // What the rank reported for this epoch (0 in MANIFESTs written before they were recorded): seconds
  // spent draining in-flight messages for the cut, and capturing + writing its image. Together they
  // are the rank's checkpoint pause, not counting the agreement before the cut and the wait for the
  // commit; benchmarks read them from here.
  double drain_seconds = 0.0;
  double write_seconds = 0.0;
  // The image is an increment of this epoch's image of the same rank (0: a full image). Retention
  // keeps the epochs a kept epoch's chain needs.
  std::uint64_t parent_epoch = 0;
  // How long the application stood still: from the cut's GO to running again (a background image
  // is written after that, so write_seconds may be longer). 0 when not recorded.
  double pause_seconds = 0.0;
  // The image's layout: "dmtcp" (DMTCP's layout, docs/formats/dmtcp-image.md); empty: yadokari's own.
  // Informational: a reader tells the layouts apart by the file's first bytes.
  std::string layout{};

  bool operator==(const ManifestImage&) const = default;
};

struct Manifest {
  std::uint64_t epoch = 0;
  std::string job_id;
  std::uint32_t world_size = 0;
  std::string flavour;
  std::string commit_time;            // ISO 8601 UTC; commit() fills it in when empty
  std::vector<ManifestImage> images;  // one per rank
  // The cut's agreement, on the front end's clock: from the checkpoint's start (CheckpointPrepare
  // sent) to every rank parked at the targets (CutGo sent). 0 when not recorded.
  double cut_seconds = 0.0;

  bool operator==(const Manifest&) const = default;
};

// The entry for the image a rank's writer just finished.
ManifestImage manifest_image(std::uint32_t rank, const image::WrittenImage& written);

std::string to_json_text(const Manifest& manifest);
// Throws StorageError naming `origin` if the text is not a valid manifest.
Manifest manifest_from_json_text(const std::string& text, const std::string& origin);

std::string utc_now_iso8601();

}  // namespace yadokari::storage
