#pragma once
// How a restart decides that a committed epoch's image is usable.
#include <filesystem>
#include <functional>

#include "checkpoint/storage/manifest.hpp"

namespace yadokari::storage {

// Throws image::ImageError or StorageError if `image` is not a good image for `entry` of `manifest`.
using ImageVerifier =
    std::function<void(const std::filesystem::path& image, const Manifest& manifest, const ManifestImage& entry)>;

// The full check: ImageReader::verify (every checksum), and the header names the job, rank and
// epoch the MANIFEST expects (an image copied to the wrong place is caught).
void verify_image(const std::filesystem::path& image, const Manifest& manifest, const ManifestImage& entry);

}  // namespace yadokari::storage
