#pragma once
// Reading checkpoint images written by DMTCP (`ckpt_*.dmtcp`), for `yadokari inspect`: the
// process header and the list of memory areas with what each stores. Layout: docs/formats/dmtcp-image.md.
// Kept apart from the image library (its own target, with zlib): the shim never reads these.
#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint/image/dmtcp_layout.hpp"

namespace yadokari::image {

// The process header and area records, as dmtcp_layout.hpp decodes them.
using DmtcpProcess = dmtcp::Process;
using DmtcpArea = dmtcp::Area;

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
