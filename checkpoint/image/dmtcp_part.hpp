#pragma once
// The DMTCP part of an image yadokari wrote in DMTCP's layout (internal to the reader): the two
// process headers, the area records with the offsets of their bytes, and where yadokari's own
// header begins (right after DMTCP's end-of-areas record). docs/formats/dmtcp-image.md.
#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint/image/dmtcp_layout.hpp"

namespace yadokari::image {

// A child record of a parent: one run of zero pages (nothing stored) or of data.
struct DmtcpPartRun {
  dmtcp::Record record{};
  dmtcp::Area area;
  std::uint64_t data_offset = 0;  // file offset of its stored bytes
};

// One mapping: a record with its bytes, or a parent record with the runs that cover it.
struct DmtcpPartArea {
  dmtcp::Record record{};
  dmtcp::Area area;
  std::uint64_t data_offset = 0;   // file offset of its stored bytes (none for a parent)
  std::vector<DmtcpPartRun> runs;  // a parent's, in order, covering it exactly
};

struct DmtcpPart {
  dmtcp::Process process;
  std::vector<DmtcpPartArea> areas;
  std::uint64_t records_offset = 0;  // file offset of yadokari's header
};

// True when the file starts with DMTCP's signature, uncompressed (what yadokari writes).
bool starts_with_dmtcp_signature(int fd, const std::string& file);

// Reads the DMTCP part of the open file. Throws ImageError: truncated, corrupt (differing header
// copies, an area whose size does not match its span, a run record outside a parent, runs that
// do not cover their parent one after the other), unsupported_version, and not_an_image when
// nothing follows the end-of-areas record (an image DMTCP itself wrote: yadokari does not restore those).
DmtcpPart read_dmtcp_part(int fd, std::uint64_t file_size, const std::string& file);

}  // namespace yadokari::image
