#pragma once
// DMTCP's checkpoint-image layout (DMTCP_CHECKPOINT_IMAGE_v4.0, x86-64): the 4096-byte process
// header and area records, encoded and decoded. No zlib and no I/O here: the image writer (in the
// shim) writes images in this layout, the reader restores them, and `yadokari inspect` lists the
// images DMTCP itself wrote (dmtcp_image.hpp). Layout: docs/formats/dmtcp-image.md.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace yadokari::image::dmtcp {

inline constexpr std::size_t kRecordSize = 4096;  // the process header and every area record
inline constexpr std::string_view kSignaturePrefix = "DMTCP_CHECKPOINT_IMAGE_v";
inline constexpr std::string_view kReadableVersion = "4.0";
inline constexpr std::string_view kSignature = "DMTCP_CHECKPOINT_IMAGE_v4.0\n";  // NUL-padded to 32 bytes
inline constexpr std::int32_t kMapPrivate = 0x02;
inline constexpr std::int32_t kMapAnonymous = 0x20;
// An area record's properties: DMTCP's zero-page bits.
inline constexpr std::uint64_t kZeroPages = 0x1;  // nothing follows: the pages are zero
inline constexpr std::uint64_t kParent = 0x2;     // the whole mapping; its runs follow as child records
inline constexpr std::uint64_t kChild = 0x4;      // one run of a parent: zero pages, or data that follows

using Record = std::array<unsigned char, kRecordSize>;

struct Process {
  std::string signature;   // "DMTCP_CHECKPOINT_IMAGE_v4.0"
  std::string program;     // the process name (comm)
  std::string executable;  // /proc/self/exe at the checkpoint
  std::int32_t pid = 0;
  std::int32_t ppid = 0;
  std::uint32_t peers = 0;  // processes in the checkpointed computation
  bool elf64 = true;
};

struct Area {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t size = 0;
  std::uint64_t offset = 0;        // into the mapped file
  std::int32_t prot = 0;           // PROT_*
  std::int32_t flags = 0;          // MAP_*
  std::uint64_t properties = 0;    // zero-page bits, below
  std::string name;                // mapped file, "[heap]", "[stack]" or ""
  std::uint64_t stored_bytes = 0;  // data that follows the record in the image

  // DMTCP splits an anonymous area into runs: one "parent" record for the whole mapping (no data),
  // then one "child" record per run of zero pages (no data) or of data.
  bool zero() const { return (properties & kZeroPages) != 0; }
  bool parent() const { return (properties & kParent) != 0; }
  bool child() const { return (properties & kChild) != 0; }
};

// True when the record starts with DMTCP's signature (of any version).
bool has_signature(const Record& header);

// The process header's fields. Throws ImageError naming `file`: not_an_image without DMTCP's
// signature, unsupported_version for a version other than 4.0.
Process decode_process(const Record& header, const std::string& file);

// An area record's fields; stored_bytes from its kind as DMTCP's readers compute it.
Area decode_area(const Record& record);

bool is_end_of_areas(const Record& record);

// What yadokari writes: a process header for one rank, a record for an anonymous private area
// (properties 0: its `size` bytes follow; kParent: its runs follow; kChild, with kZeroPages or
// not: one run of the parent before it), and the end-of-areas record.
Record encode_process(const Process& process);
Record encode_area(std::uint64_t start, std::uint64_t size, std::uint32_t prot, const std::string& name,
                   std::uint64_t properties = 0);
Record encode_end_of_areas();

}  // namespace yadokari::image::dmtcp
