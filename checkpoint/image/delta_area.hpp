#pragma once
// The data of a delta area: the pages of an area that changed since the parent image, and what a
// reader needs to check them and put them in place (internal; layout in format.hpp and
// docs/formats/image.md).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/image/area.hpp"
#include "checkpoint/image/zero_pages.hpp"

namespace yadokari::image {

struct DeltaHeader {
  std::uint64_t full_checksum = 0;  // xxh64 of the area's whole contents once the delta is applied
  std::uint64_t parent_length = 0;  // length of the parent image's area; 0: it had none
  std::vector<PageRun> runs;        // the pages stored, in order
};

std::vector<std::byte> encode_delta_header(const DeltaHeader& header);

// Reads and checks the header of a delta area's data (runs in order, inside the area, fitting the
// stored length). False if it makes no sense, which the reader reports as a checksum mismatch.
bool read_delta_header(int fd, const std::string& file, const AreaRecord& area, DeltaHeader& header,
                       std::uint64_t& header_size);

// Pages whose contents are not given by the parent: those of the parent's area that lie wholly
// inside its length keep its contents unless listed, every other page is zero unless listed.
// Lists the pages in `written` and every page from there on that is not all zero, merged.
std::vector<PageRun> delta_runs(const std::byte* data, std::uint64_t length, std::span<const PageRun> written,
                                std::uint64_t parent_length);

// The area's pages (4 KiB from the area's start, which need not be page-aligned in memory) that
// any of the written address ranges [first, second) touches, merged.
std::vector<PageRun> pages_touching(std::uint64_t area_address, std::uint64_t length,
                                    std::span<const std::pair<std::uint64_t, std::uint64_t>> written);

// First page of the area that does not lie wholly inside the parent's length.
inline std::uint64_t first_page_past_parent(std::uint64_t parent_length) { return parent_length / 4096; }

}  // namespace yadokari::image
