#pragma once
// Which 4 KiB pages of an area hold anything but zeros (internal). Untouched heap and stack pages
// are zero, and not writing them is most of what keeps images smaller than the rank's memory.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "checkpoint/image/format.hpp"

namespace yadokari::image {

// Constant-initialised, so no global constructor runs for it.
alignas(64) inline constexpr std::byte kZeroPage[format::kPageSize]{};

struct PageRun {
  std::uint64_t first = 0;  // page index from the area's start
  std::uint64_t count = 0;

  bool operator==(const PageRun&) const = default;
};

// Runs of pages that are not all zero, in order. The last page may be shorter than 4 KiB.
std::vector<PageRun> stored_page_runs(const std::byte* data, std::uint64_t length);

// One run covering every page (nothing elided).
std::vector<PageRun> all_pages(std::uint64_t length);

// Bytes a run covers within an area of `length` bytes (the last page may be short).
std::uint64_t run_bytes(const PageRun& run, std::uint64_t length);

std::uint64_t page_count(std::uint64_t length);

}  // namespace yadokari::image
