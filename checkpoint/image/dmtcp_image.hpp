#pragma once
// Reading checkpoint images written by DMTCP (`ckpt_*.dmtcp`), for `yadokari inspect`: the
// process header and the list of memory areas with what each stores. Layout: docs/formats/dmtcp-image.md.
// Kept apart from the image library (its own target, with zlib): the shim never reads these.
#include <cstdint>
#include <string>
#include <vector>

namespace yadokari::image {

struct DmtcpProcess {
  std::string signature;   // "DMTCP_CHECKPOINT_IMAGE_v4.0"
  std::string program;     // the process name (comm)
  std::string executable;  // /proc/self/exe at the checkpoint
  std::int32_t pid = 0;
  std::int32_t ppid = 0;
  std::uint32_t peers = 0;  // processes in the checkpointed computation
  bool elf64 = true;
};

struct DmtcpArea {
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
  bool zero() const { return (properties & 0x1) != 0; }
  bool parent() const { return (properties & 0x2) != 0; }
  bool child() const { return (properties & 0x4) != 0; }
};

struct DmtcpImage {
  DmtcpProcess process;
  std::vector<DmtcpArea> areas;
  bool gzip = false;              // the file is gzip-compressed (DMTCP's default)
  std::uint64_t image_bytes = 0;  // the uncompressed image, headers included
};

// True when the file's (possibly gzip-compressed) first bytes are DMTCP's image signature.
bool is_dmtcp_image(const std::string& path);

// The whole image read once, sequentially (a gzip stream cannot seek). Throws ImageError with
// "<path>: ..." when it is not a DMTCP image, ends early or is inconsistent.
DmtcpImage read_dmtcp_image(const std::string& path);

}  // namespace yadokari::image
