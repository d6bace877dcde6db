// The capture's side of dirty-page tracking (written_pages.hpp): which ranges DirtyTracker watches.
#include "checkpoint/memory/written_pages.hpp"

#include "checkpoint/memory/src/arena.hpp"
#include "checkpoint/memory/src/dirty_pages.hpp"
#include "checkpoint/memory/src/exe_layout.hpp"
#include "checkpoint/memory/src/layout.hpp"
#include "checkpoint/memory/src/mapping_live.hpp"
#include "checkpoint/memory/src/process.hpp"

namespace yadokari::memory {
namespace {

constexpr std::uintptr_t kPage = 4096;

// Not carried (the shim's and this layer's own state never are): a restarted process starts
// without tracking and its first image is full.
DirtyTracker* g_tracker = nullptr;
std::string g_unavailable;
// The application's mappings the last collect listed the written pages of (the capture's areas at
// exactly these ranges are tracked); .bss, so a forked writer sees the rank's list.
PageRange g_mappings[kMaxMappings];
int g_mapping_count = 0;

std::uintptr_t page_down(std::uintptr_t a) { return a & ~(kPage - 1); }
std::uintptr_t page_up(std::uintptr_t a) { return (a + kPage - 1) & ~(kPage - 1); }

// The executable's writable segments, widened to whole pages (the capture's .data/.bss areas lie
// inside them).
std::vector<PageRange> exe_ranges(std::string& why) {
  ExeLayout exe;
  std::vector<PageRange> ranges;
  if (!read_exe_layout(exe, why)) return ranges;
  for (const Range& r : exe.writable)
    if (r.hi > r.lo) ranges.push_back({page_down(r.lo), page_up(r.hi)});
  merge_ranges(ranges);
  return ranges;
}

WrittenPages unavailable(std::string& why, const std::string& reason) {
  g_unavailable = reason.empty() ? "dirty-page tracking failed" : reason;
  if (g_tracker) g_tracker->stop();
  why = g_unavailable;
  return WrittenPages::unavailable;
}

// The application's mappings whose written pages can be listed: anonymous private ones in the
// reserved region whose contents travel. Not file mappings (a private one shows the file's changes
// in pages it never wrote, without a write), not shared ones (another process's writes are not
// seen), nothing outside the region (a MAP_FIXED over other memory).
std::vector<PageRange> trackable_mappings() {
  std::vector<PageRange> ranges;
  MappingsLocked l;
  const MappingTable& t = live_mappings();
  for (int i = 0; i < t.size(); ++i) {
    const MapRecord& r = t.at(i);
    if (r.backing == MapBacking::anon_private && carries_contents(r) && in_map_region(r.addr, r.addr + r.len))
      ranges.push_back({r.addr, r.addr + r.len});
  }
  return ranges;
}

// Lists the written pages of each trackable mapping into `written` and notes which ones in
// g_mappings. At the baseline each is registered; later, a mapping made, replaced or moved since
// the previous collect (its range is new, or a mapping in it is not registered: munmap + mmap at
// the same address) is registered again and counts as written whole. A mapping the kernel does not
// let us register is left out: its area goes into the increment whole.
void collect_mappings(bool baseline, std::vector<PageRange>& written) {
  g_mapping_count = 0;
  for (const PageRange& range : trackable_mappings()) {
    if (baseline) {
      if (!g_tracker->replaced(range)) continue;
    } else if (!g_tracker->registered(range) && !g_tracker->replaced(range)) {
      continue;
    }
    std::vector<PageRange> found;
    if (!g_tracker->collect(range, found)) continue;
    written.insert(written.end(), found.begin(), found.end());
    g_mappings[g_mapping_count++] = range;
  }
}

}  // namespace

bool tracks_written_pages(AreaKind kind, std::uint64_t addr, std::uint64_t len) {
  if (kind == AreaKind::arena || kind == AreaKind::exe_data) return true;
  if (kind != AreaKind::mappings) return false;
  for (int i = 0; i < g_mapping_count; ++i)
    if (g_mappings[i].start == addr && g_mappings[i].end == addr + len) return true;
  return false;
}

WrittenPages collect_written_pages(std::vector<WrittenRange>& pages, std::string& why) {
  g_mapping_count = 0;
  if (!g_unavailable.empty()) {
    why = g_unavailable;
    return WrittenPages::unavailable;
  }
  std::string error;
  std::vector<PageRange> exe = exe_ranges(error);
  if (!error.empty()) return unavailable(why, error);
  const bool first = !g_tracker || !g_tracker->active();
  if (first) {
    if (!g_tracker) g_tracker = new DirtyTracker;
    // The whole arena reservation: registering its PROT_NONE part costs nothing, and the pages it
    // commits later (mprotect) stay registered. Only the used part is ever collected.
    std::vector<PageRange> ranges = exe;
    ranges.push_back({kArenaBase, kArenaBase + kArenaReserve});
    if (!g_tracker->start(ranges)) return unavailable(why, g_tracker->reason());
  }
  std::vector<PageRange> written;
  for (const PageRange& r : exe)
    if (!g_tracker->collect(r, written)) return unavailable(why, g_tracker->reason());
  const std::uintptr_t used = page_up(arena()->used_end());
  if (used > kArenaBase && !g_tracker->collect({kArenaBase, used}, written))
    return unavailable(why, g_tracker->reason());
  collect_mappings(first, written);
  if (first) return WrittenPages::baseline;  // the first collect reports every page: no list
  pages.clear();
  pages.reserve(written.size());
  for (const PageRange& r : written) pages.emplace_back(r.start, r.end);
  return WrittenPages::listed;
}

}  // namespace yadokari::memory
