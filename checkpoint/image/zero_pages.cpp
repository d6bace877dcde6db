#include "checkpoint/image/zero_pages.hpp"

#include <algorithm>
#include <cstring>

namespace yadokari::image {

using format::kPageSize;

std::uint64_t page_count(std::uint64_t length) { return (length + kPageSize - 1) / kPageSize; }

std::uint64_t run_bytes(const PageRun& run, std::uint64_t length) {
  const std::uint64_t begin = run.first * kPageSize;
  const std::uint64_t end = std::min(length, (run.first + run.count) * kPageSize);
  return end > begin ? end - begin : 0;
}

std::vector<PageRun> stored_page_runs(const std::byte* data, std::uint64_t length) {
  std::vector<PageRun> runs;
  const std::uint64_t pages = page_count(length);
  for (std::uint64_t page = 0; page < pages; ++page) {
    const std::uint64_t offset = page * kPageSize;
    const std::size_t size = static_cast<std::size_t>(std::min<std::uint64_t>(kPageSize, length - offset));
    if (std::memcmp(data + offset, kZeroPage, size) == 0) continue;
    if (!runs.empty() && runs.back().first + runs.back().count == page)
      ++runs.back().count;
    else
      runs.push_back({page, 1});
  }
  return runs;
}

std::vector<PageRun> all_pages(std::uint64_t length) {
  if (length == 0) return {};
  return {{0, page_count(length)}};
}

}  // namespace yadokari::image
