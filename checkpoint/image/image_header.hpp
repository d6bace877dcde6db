#pragma once
// What an image says about itself before any area: whose rank it is, of which checkpoint, and
// which binaries it is valid for.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace yadokari::image {

// Format versions: 1 is a full image, 2 an increment (its header names its parent image). This
// build reads both and writes 1 unless the image is an increment, so full images stay readable by
// builds that know only version 1, and those refuse an increment as an unsupported version.
inline constexpr std::uint32_t kFullImageVersion = 1;
inline constexpr std::uint32_t kIncrementVersion = 2;

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

// The image an increment was taken against: the same rank's image of an earlier epoch, named by
// its epoch and its header checksum (which covers its creation time, so another image written for
// the same epoch does not match).
struct ParentImage {
  std::uint64_t epoch = 0;
  std::uint64_t header_checksum = 0;

  bool operator==(const ParentImage&) const = default;
};

struct ImageHeader {
  std::uint32_t version = kFullImageVersion;  // set by the reader; the writer chooses it from `parent`
  std::string job_id;
  std::uint32_t rank = 0;  // logical rank
  std::uint32_t world_size = 0;
  std::uint64_t epoch = 0;
  std::string flavour;                   // "openmpi" or "mpich"
  std::int64_t created_unix_ns = 0;      // 0: the writer fills in the current time
  std::vector<BinaryIdentity> binaries;  // the executable first, then every pre-main library
  std::optional<ParentImage> parent;     // set: an increment (version 2)

  bool increment() const { return parent.has_value(); }

  bool operator==(const ImageHeader&) const = default;
};

}  // namespace yadokari::image
