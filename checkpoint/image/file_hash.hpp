#pragma once
// xxh64 of a whole file: what a MANIFEST records per rank image, and the fallback identity of a
// binary without a build-id.
#include <cstdint>
#include <string>

namespace yadokari::image {

std::uint64_t xxh64_of_fd(int fd, const std::string& file);
std::uint64_t xxh64_of_file(const std::string& path);

// 16 lower-case hex digits, the form used in listings and the MANIFEST.
std::string hex64(std::uint64_t value);
// Lower-case hex of raw bytes.
std::string hex_bytes(const std::string& bytes);

}  // namespace yadokari::image
