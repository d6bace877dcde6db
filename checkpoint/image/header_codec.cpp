#include "checkpoint/image/header_codec.hpp"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "checkpoint/image/byte_codec.hpp"
#include "checkpoint/image/format.hpp"
#include "checkpoint/image/image_error.hpp"

namespace yadokari::image::codec {
namespace {

using namespace format;

void put_string(Appender& out, const std::string& text, const char* what, const std::string& file) {
  if (text.size() > std::numeric_limits<std::uint16_t>::max())
    throw ImageError(ImageErrorKind::usage, file, std::string(what) + " is longer than 65535 bytes");
  out.put(static_cast<std::uint16_t>(text.size()));
  out.put_bytes(text.data(), text.size());
}

bool get_string(Cursor& in, std::string& text) {
  std::uint16_t size = 0;
  return in.get(size) && in.get_bytes(text, size);
}

ImageError corrupt_header(const std::string& file, const std::string& what) {
  return ImageError(ImageErrorKind::corrupt, file, "corrupt header: " + what);
}

}  // namespace

std::vector<std::byte> encode_header(const ImageHeader& header, const std::string& file) {
  Appender out;
  out.put_bytes(kMagic, sizeof kMagic);
  out.put(header.increment() ? kIncrementVersion : kFullImageVersion);
  out.put(std::uint32_t{0});  // header length, patched below
  out.put(std::uint64_t{0});  // prefix checksum, patched below
  out.put(header.rank);
  out.put(header.world_size);
  out.put(header.epoch);
  out.put(header.created_unix_ns);
  if (header.binaries.size() > std::numeric_limits<std::uint32_t>::max())
    throw ImageError(ImageErrorKind::usage, file, "too many binaries");
  out.put(static_cast<std::uint32_t>(header.binaries.size()));
  put_string(out, header.job_id, "job id", file);
  put_string(out, header.flavour, "MPI flavour", file);
  for (const auto& binary : header.binaries) {
    put_string(out, binary.path, "binary path", file);
    if (binary.id.size() > std::numeric_limits<std::uint8_t>::max())
      throw ImageError(ImageErrorKind::usage, file, "identity of " + binary.path + " is longer than 255 bytes");
    out.put(static_cast<std::uint8_t>(binary.kind));
    out.put(static_cast<std::uint8_t>(binary.id.size()));
    out.put_bytes(binary.id.data(), binary.id.size());
    out.put(binary.size);
  }
  if (header.parent) {
    out.put(header.parent->epoch);
    out.put(header.parent->header_checksum);
  }
  auto& bytes = out.bytes();
  const std::size_t length = bytes.size() + sizeof(std::uint64_t);
  if (length > kMaxHeaderSize) throw ImageError(ImageErrorKind::usage, file, "header larger than 16 MiB");
  store(bytes.data() + kHeaderLengthOffset, static_cast<std::uint32_t>(length));
  store(bytes.data() + kPrefixChecksumOffset, XXH64(bytes.data(), kPrefixChecksumOffset, 0));
  out.put(static_cast<std::uint64_t>(XXH64(bytes.data(), bytes.size(), 0)));
  return std::move(out.bytes());
}

std::size_t check_prefix(const std::byte* data, std::size_t available, std::uint64_t file_size,
                         const std::string& file) {
  const std::size_t magic_bytes = std::min(available, sizeof kMagic);
  if (std::memcmp(data, kMagic, magic_bytes) != 0)
    throw ImageError(ImageErrorKind::not_an_image, file, "not a yadokari image (bad magic)");
  if (available < kPrefixSize) throw ImageError(ImageErrorKind::truncated, file, "truncated inside the header");
  if (load<std::uint64_t>(data + kPrefixChecksumOffset) != XXH64(data, kPrefixChecksumOffset, 0))
    throw ImageError(ImageErrorKind::checksum_mismatch, file, "checksum mismatch in the header");
  const auto version = load<std::uint32_t>(data + kVersionOffset);
  if (version != kFullImageVersion && version != kIncrementVersion)
    throw ImageError(
        ImageErrorKind::unsupported_version, file,
        "unsupported image format version " + std::to_string(version) + " (this yadokari reads versions 1 and 2)");
  const std::size_t length = load<std::uint32_t>(data + kHeaderLengthOffset);
  if (length < kPrefixSize + sizeof(std::uint64_t) || length > kMaxHeaderSize)
    throw corrupt_header(file, "impossible header length " + std::to_string(length));
  if (file_size < length) throw ImageError(ImageErrorKind::truncated, file, "truncated inside the header");
  return length;
}

ImageHeader decode_header(const std::byte* data, std::size_t length, const std::string& file) {
  const std::size_t body = length - sizeof(std::uint64_t);
  if (stored_header_checksum(data, length) != XXH64(data, body, 0))
    throw ImageError(ImageErrorKind::checksum_mismatch, file, "checksum mismatch in the header");

  ImageHeader header;
  header.version = load<std::uint32_t>(data + kVersionOffset);
  Cursor in(data + kPrefixSize, body - kPrefixSize);
  std::uint32_t binary_count = 0;
  bool ok = in.get(header.rank) && in.get(header.world_size) && in.get(header.epoch) &&
            in.get(header.created_unix_ns) && in.get(binary_count) && get_string(in, header.job_id) &&
            get_string(in, header.flavour);
  for (std::uint32_t i = 0; ok && i < binary_count; ++i) {
    BinaryIdentity binary;
    std::uint8_t kind = 0;
    std::uint8_t id_size = 0;
    ok = get_string(in, binary.path) && in.get(kind) && in.get(id_size) && in.get_bytes(binary.id, id_size) &&
         in.get(binary.size);
    binary.kind = static_cast<IdentityKind>(kind);
    header.binaries.push_back(std::move(binary));
  }
  if (ok && header.version == kIncrementVersion) {
    ParentImage parent;
    ok = in.get(parent.epoch) && in.get(parent.header_checksum);
    header.parent = parent;
  }
  // With a matching checksum this only fails for an image written by a broken writer.
  if (!ok) throw corrupt_header(file, "fields run past the header length");
  if (in.position() != body - kPrefixSize) throw corrupt_header(file, "unexpected bytes after the fields");
  return header;
}

std::uint64_t stored_header_checksum(const std::byte* data, std::size_t length) {
  return load<std::uint64_t>(data + length - sizeof(std::uint64_t));
}

}  // namespace yadokari::image::codec
