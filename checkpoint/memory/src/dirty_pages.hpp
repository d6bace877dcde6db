#pragma once
// Which pages of the application's memory were written since the last checkpoint, for incremental
// images: userfaultfd write-protection in asynchronous mode (a write to a protected page only
// clears the page's protection bit in the kernel, no handler thread is involved) and the
// PAGEMAP_SCAN ioctl of /proc/self/pagemap, which lists the written pages and protects them again
// in one atomic walk. Kernel facts and costs: checkpoint/memory/README.md "Dirty-page tracking".
//
// Used by the capture through written_pages.hpp, for the image format's increments
// (docs/formats/image.md).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace yadokari::memory {

// Byte addresses, page-aligned, [start, end).
struct PageRange {
  std::uintptr_t start = 0;
  std::uintptr_t end = 0;
  bool operator==(const PageRange&) const = default;
};

class DirtyTracker {
 public:
  DirtyTracker() = default;
  ~DirtyTracker();
  DirtyTracker(const DirtyTracker&) = delete;
  DirtyTracker& operator=(const DirtyTracker&) = delete;

  // Registers the ranges for write tracking and write-protects every page in them: from now on
  // collect() reports the pages written after this call. The ranges may include PROT_NONE
  // reservations (the arena's uncommitted part): registration costs no page tables there, and
  // pages committed later by mprotect stay registered. False when the kernel or the permissions
  // do not allow it; reason() says why in one line and the tracker stays off.
  bool start(std::span<const PageRange> ranges);

  // A mapping was made (or replaced) inside a tracked range since start(): registers its range
  // again, and the whole range counts as written at the next collect (its old contents are gone,
  // whatever the new mapping's pages hold). Without this call collect() over that range fails.
  bool replaced(PageRange range);

  // Counts a range as written at the next collect although the kernel did not see a write there:
  // contents changed without a write fault (madvise(MADV_DONTNEED) zeroing pages, for example).
  void note_written(PageRange range);

  // Appends to `written` the ranges of pages inside `range` written since the last collect of
  // them (or since start), sorted and merged, and with `rearm` write-protects them again in the
  // same walk. False (reason() says why; `written` is then incomplete and must not be used) when a
  // mapping inside `range` is not registered — made by MAP_FIXED over the reservation or moved by
  // mremap without replaced() — or the scan fails.
  bool collect(PageRange range, std::vector<PageRange>& written, bool rearm = true);

  // Whether every mapping inside `range` is registered (nothing made or moved there since it was
  // registered), without protecting or consuming anything: a collect() over it would succeed.
  bool registered(PageRange range);

  bool active() const { return uffd_ >= 0; }
  const std::string& reason() const { return reason_; }

  // After fork(): the child's copies of the tracked mappings are not registered (no
  // UFFD_FEATURE_EVENT_FORK) and its writes are not tracked; the parent's tracking goes on
  // unchanged. In the child, collect() and replaced() fail and stop() only closes descriptors.
  //
  // Unregisters everything and closes the descriptor: pages are writable without any fault again.
  void stop();

  // Empty when this kernel and process can track written pages; otherwise why not, one line.
  static std::string unavailable_reason();

 private:
  bool fail(const std::string& why);
  bool usable();
  bool register_range(PageRange range);
  bool scan(PageRange range, bool write_protect, std::vector<PageRange>* written);

  int uffd_ = -1;
  int pagemap_ = -1;
  int owner_ = 0;  // the process that started the tracking
  std::vector<PageRange> registered_;
  std::vector<PageRange> noted_;  // note_written() and replaced() since the last collect
  std::string reason_;
};

// Sorts and merges touching or overlapping ranges.
void merge_ranges(std::vector<PageRange>& ranges);

}  // namespace yadokari::memory
