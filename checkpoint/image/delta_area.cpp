#include "checkpoint/image/delta_area.hpp"

#include <algorithm>

#include "checkpoint/image/byte_codec.hpp"
#include "checkpoint/image/fd_io.hpp"
#include "checkpoint/image/format.hpp"

namespace yadokari::image {
namespace {

void merge(std::vector<PageRun>& runs) {
  std::sort(runs.begin(), runs.end(), [](const PageRun& a, const PageRun& b) { return a.first < b.first; });
  std::vector<PageRun> merged;
  for (const auto& run : runs) {
    if (run.count == 0) continue;
    if (!merged.empty() && run.first <= merged.back().first + merged.back().count)
      merged.back().count =
          std::max(merged.back().first + merged.back().count, run.first + run.count) - merged.back().first;
    else
      merged.push_back(run);
  }
  runs = std::move(merged);
}

}  // namespace

std::vector<std::byte> encode_delta_header(const DeltaHeader& header) {
  codec::Appender out;
  out.put(header.full_checksum);
  out.put(header.parent_length);
  out.put(static_cast<std::uint64_t>(header.runs.size()));
  for (const auto& run : header.runs) {
    out.put(run.first);
    out.put(run.count);
  }
  return std::move(out.bytes());
}

bool read_delta_header(int fd, const std::string& file, const AreaRecord& area, DeltaHeader& header,
                       std::uint64_t& header_size) {
  std::byte fixed[format::kDeltaHeaderSize];
  if (area.stored_length < sizeof fixed || io::read_at(fd, area.data_offset, fixed, sizeof fixed, file) != sizeof fixed)
    return false;
  header.full_checksum = codec::load<std::uint64_t>(fixed);
  header.parent_length = codec::load<std::uint64_t>(fixed + 8);
  const auto count = codec::load<std::uint64_t>(fixed + 16);
  if (count > area.pages() || count > (area.stored_length - sizeof fixed) / format::kRunSize) return false;
  header_size = sizeof fixed + count * format::kRunSize;
  std::vector<std::byte> bytes(count * format::kRunSize);
  if (io::read_at(fd, area.data_offset + sizeof fixed, bytes.data(), bytes.size(), file) != bytes.size()) return false;
  std::uint64_t next_free = 0;
  header.runs.clear();
  for (std::uint64_t i = 0; i < count; ++i) {
    const PageRun run{codec::load<std::uint64_t>(bytes.data() + i * 16),
                      codec::load<std::uint64_t>(bytes.data() + i * 16 + 8)};
    if (run.count == 0 || run.first < next_free || run.first > area.pages() || run.count > area.pages() - run.first)
      return false;
    next_free = run.first + run.count;
    header.runs.push_back(run);
  }
  return true;
}

std::vector<PageRun> delta_runs(const std::byte* data, std::uint64_t length, std::span<const PageRun> written,
                                std::uint64_t parent_length) {
  const std::uint64_t pages = page_count(length);
  std::vector<PageRun> runs;
  for (const auto& run : written) {
    if (run.first >= pages) continue;
    runs.push_back({run.first, std::min(run.count, pages - run.first)});
  }
  const std::uint64_t first_new = first_page_past_parent(parent_length);
  if (first_new < pages) {
    const std::uint64_t offset = first_new * format::kPageSize;
    for (auto run : stored_page_runs(data + offset, length - offset)) {
      run.first += first_new;
      runs.push_back(run);
    }
  }
  merge(runs);
  return runs;
}

std::vector<PageRun> pages_touching(std::uint64_t area_address, std::uint64_t length,
                                    std::span<const std::pair<std::uint64_t, std::uint64_t>> written) {
  std::vector<PageRun> runs;
  const std::uint64_t area_end = area_address + length;
  for (const auto& [start, end] : written) {
    const std::uint64_t from = std::max(start, area_address);
    const std::uint64_t to = std::min(end, area_end);
    if (from >= to) continue;
    const std::uint64_t first = (from - area_address) / format::kPageSize;
    const std::uint64_t last = (to - 1 - area_address) / format::kPageSize;
    runs.push_back({first, last - first + 1});
  }
  merge(runs);
  return runs;
}

}  // namespace yadokari::image
