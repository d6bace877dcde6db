#pragma once
// How an area is split into DMTCP's zero-page runs when yadokari writes it in DMTCP's layout
// (internal to the writer and reader): a parent record for the whole area, then one child record
// per run, a zero run storing nothing. docs/formats/dmtcp-image.md, "Zero pages".
#include <cstddef>
#include <cstdint>
#include <vector>

namespace yadokari::image {

struct DmtcpRun {
  std::uint64_t offset = 0;  // from the area's start, a multiple of 4 KiB
  std::uint64_t bytes = 0;   // a multiple of 4 KiB but for the area's last run
  bool zero = false;

  bool operator==(const DmtcpRun&) const = default;
};

// Every child record costs a 4 KiB record, so only zero stretches of at least this many pages
// become zero runs: a shorter one stays inside its data run, where it costs no more.
inline constexpr std::uint64_t kMinZeroRunPages = 3;

// The runs covering the area, alternately data and zero, in order; empty when the area has no
// zero stretch of kMinZeroRunPages pages (it is then written as one record with all its bytes).
std::vector<DmtcpRun> dmtcp_runs(const std::byte* data, std::uint64_t length);

}  // namespace yadokari::image
