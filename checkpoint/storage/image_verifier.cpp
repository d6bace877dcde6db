#include "checkpoint/storage/image_verifier.hpp"

#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/storage/storage_error.hpp"

namespace yadokari::storage {

void verify_image(const std::filesystem::path& image, const Manifest& manifest, const ManifestImage& entry) {
  const image::ImageReader reader(image.string());
  const auto& header = reader.header();
  if (header.job_id != manifest.job_id || header.rank != entry.rank || header.epoch != manifest.epoch)
    throw StorageError("holds job " + header.job_id + " rank " + std::to_string(header.rank) + " epoch " +
                       std::to_string(header.epoch) + ", not job " + manifest.job_id + " rank " +
                       std::to_string(entry.rank) + " epoch " + std::to_string(manifest.epoch));
  reader.verify();
}

}  // namespace yadokari::storage
