#pragma once
// Fuzz targets whose parser reads a file (an image, a MANIFEST, job.json, a job record, a
// hostfile) get the fuzzer's bytes written to a private scratch directory first, removed when
// the process exits.
#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace yadokari::fuzz {

// A directory of this process's own, created on first use.
const std::filesystem::path& scratch_dir();

// Writes exactly `size` bytes to `path` (replacing it), creating its parent directories.
void write_scratch_file(const std::filesystem::path& path, const std::uint8_t* data, std::size_t size);

}  // namespace yadokari::fuzz
