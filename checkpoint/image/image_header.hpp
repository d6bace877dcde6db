#pragma once
// What an image says about itself before any area: whose rank it is, of which checkpoint, and
// which binaries it is valid for.
#include <cstdint>
#include <string>
#include <vector>

namespace yadokari::image {

// The format version this build writes and the only one it reads.
inline constexpr std::uint32_t kFormatVersion = 1;

// How a binary was identified: by its GNU build-id note, or (no note) by a hash of its content.
enum class IdentityKind : std::uint8_t {
  build_id = 1,
  content_xxh64 = 2,
};

struct BinaryIdentity {
  std::string path;  // absolute path the binary was loaded from
  IdentityKind kind = IdentityKind::build_id;
  std::string id;          // raw bytes: the build-id, or the 8 big-endian bytes of the xxh64
  std::uint64_t size = 0;  // file size in bytes

  bool operator==(const BinaryIdentity&) const = default;
};

// "build-id 3f2a..." / "xxh64 0123456789abcdef".
std::string describe_identity(const BinaryIdentity& binary);

struct ImageHeader {
  std::uint32_t version = kFormatVersion;  // set by the reader; the writer always writes kFormatVersion
  std::string job_id;
  std::uint32_t rank = 0;  // logical rank
  std::uint32_t world_size = 0;
  std::uint64_t epoch = 0;
  std::string flavour;                   // "openmpi" or "mpich"
  std::int64_t created_unix_ns = 0;      // 0: the writer fills in the current time
  std::vector<BinaryIdentity> binaries;  // the executable first, then every pre-main library

  bool operator==(const ImageHeader&) const = default;
};

}  // namespace yadokari::image
