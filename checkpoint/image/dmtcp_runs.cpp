#include "checkpoint/image/dmtcp_runs.hpp"

#include <algorithm>

#include "checkpoint/image/format.hpp"
#include "checkpoint/image/zero_pages.hpp"

namespace yadokari::image {

std::vector<DmtcpRun> dmtcp_runs(const std::byte* data, std::uint64_t length) {
  // Zero stretches are the gaps between the stored page runs; short gaps are merged into data.
  std::vector<DmtcpRun> runs;
  auto add = [&](std::uint64_t offset, std::uint64_t end, bool zero) {
    if (!runs.empty() && runs.back().zero == zero)
      runs.back().bytes = end - runs.back().offset;
    else
      runs.push_back({offset, end - offset, zero});
  };
  std::uint64_t page = 0;  // pages covered so far
  bool any_zero_run = false;
  auto gap_until = [&](std::uint64_t next_page) {
    if (next_page == page) return;
    const bool zero = next_page - page >= kMinZeroRunPages;
    any_zero_run = any_zero_run || zero;
    add(page * format::kPageSize, std::min(length, next_page * format::kPageSize), zero);
  };
  for (const PageRun& run : stored_page_runs(data, length)) {
    gap_until(run.first);
    add(run.first * format::kPageSize, run.first * format::kPageSize + run_bytes(run, length), false);
    page = run.first + run.count;
  }
  gap_until(page_count(length));
  if (!any_zero_run) return {};
  return runs;
}

}  // namespace yadokari::image
