#pragma once
// Images are only valid for byte-identical binaries (docs/architecture.md §5 and pitfall 2): the
// executable and every library loaded before main are identified when the image is written and
// checked before a restore.
#include <string>
#include <vector>

#include "checkpoint/image/image_header.hpp"

namespace yadokari::image {

// A file's GNU build-id if it is an ELF file with one, else the xxh64 of its content.
// Throws ImageError(io) if it cannot be read.
BinaryIdentity identify_file(const std::string& path);

// The executable (first) and every shared object loaded in this process, in load order, from the
// build-id notes already in memory (no file is read unless an object has no build-id).
// The vDSO, which has no file, is skipped.
std::vector<BinaryIdentity> loaded_binaries();

// Empty when `current` holds the same binaries as `saved`; otherwise one sentence per
// difference, e.g. "/usr/lib/libfoo.so.1 changed since the checkpoint (was build-id ab12..., 8 bytes;
// now build-id cd34..., 8 bytes)".
std::vector<std::string> identity_mismatches(const std::vector<BinaryIdentity>& saved,
                                             const std::vector<BinaryIdentity>& current);

}  // namespace yadokari::image
