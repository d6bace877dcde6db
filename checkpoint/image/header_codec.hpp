#pragma once
// Encoding and decoding of the image header (internal).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint/image/image_header.hpp"

namespace yadokari::image::codec {

// The complete header bytes, both checksums included. Throws ImageError(usage) for strings
// too long for their length fields. `file` only names the image in errors.
std::vector<std::byte> encode_header(const ImageHeader& header, const std::string& file);

// Checks the first bytes of a file: magic, prefix checksum, version, header length.
// `available` may be fewer than the prefix when the file is that short. Returns the header length.
std::size_t check_prefix(const std::byte* data, std::size_t available, std::uint64_t file_size,
                         const std::string& file);

// Verifies the header checksum and parses the fields of a header of `length` bytes (as returned
// by check_prefix).
ImageHeader decode_header(const std::byte* data, std::size_t length, const std::string& file);

// The header checksum stored in the last 8 bytes of an encoded header.
std::uint64_t stored_header_checksum(const std::byte* data, std::size_t length);

}  // namespace yadokari::image::codec
