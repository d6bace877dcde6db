// The capture's side of dirty-page tracking (written_pages.hpp): which ranges DirtyTracker watches.
#include "../written_pages.hpp"

#include "arena.hpp"
#include "dirty_pages.hpp"
#include "exe_layout.hpp"
#include "layout.hpp"
#include "process.hpp"

namespace yadokari::memory {
namespace {

constexpr std::uintptr_t kPage = 4096;

// Not carried (the shim's and this layer's own state never are): a restarted process starts
// without tracking and its first image is full.
DirtyTracker* g_tracker = nullptr;
std::string g_unavailable;

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

}  // namespace

bool tracks_written_pages(AreaKind kind) { return kind == AreaKind::arena || kind == AreaKind::exe_data; }

WrittenPages collect_written_pages(std::vector<WrittenRange>& pages, std::string& why) {
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
  if (first) return WrittenPages::baseline;  // the first collect reports every page: no list
  pages.clear();
  pages.reserve(written.size());
  for (const PageRange& r : written) pages.emplace_back(r.start, r.end);
  return WrittenPages::listed;
}

}  // namespace yadokari::memory
