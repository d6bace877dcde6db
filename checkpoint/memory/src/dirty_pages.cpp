#include "checkpoint/memory/src/dirty_pages.hpp"
#include "checkpoint/memory/src/raw_syscalls.hpp"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

// Debian 12's kernel headers are 6.1; these arrived in 6.7 (checked at run time, the ioctls fail
// cleanly on an older kernel).
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef PAGEMAP_SCAN
struct page_region {
  __u64 start;
  __u64 end;
  __u64 categories;
};
struct pm_scan_arg {
  __u64 size;
  __u64 flags;
  __u64 start;
  __u64 end;
  __u64 walk_end;
  __u64 vec;
  __u64 vec_len;
  __u64 max_pages;
  __u64 category_inverted;
  __u64 category_mask;
  __u64 category_anyof_mask;
  __u64 return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#define PAGE_IS_WRITTEN (1 << 1)
#endif

namespace yadokari::memory {
namespace {

constexpr std::uintptr_t kPageSize = 4096;
constexpr std::size_t kRegionsPerScan = 512;

std::string hex(std::uintptr_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%lx", static_cast<unsigned long>(value));
  return text;
}

std::string describe(PageRange range) { return "[" + hex(range.start) + ", " + hex(range.end) + ")"; }

bool aligned(PageRange range) {
  return range.start % kPageSize == 0 && range.end % kPageSize == 0 && range.start < range.end;
}

}  // namespace

void merge_ranges(std::vector<PageRange>& ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const PageRange& a, const PageRange& b) { return a.start < b.start; });
  std::size_t out = 0;
  for (const auto& range : ranges) {
    if (out > 0 && range.start <= ranges[out - 1].end)
      ranges[out - 1].end = std::max(ranges[out - 1].end, range.end);
    else
      ranges[out++] = range;
  }
  ranges.resize(out);
}

DirtyTracker::~DirtyTracker() { stop(); }

bool DirtyTracker::fail(const std::string& why) {
  reason_ = why;
  return false;
}

bool DirtyTracker::start(std::span<const PageRange> ranges) {
  stop();
  reason_.clear();
  // User-mode-only faults are enough (the asynchronous mode never delivers a fault to a handler,
  // and writes by the kernel, read(2) into a protected buffer, are resolved like the
  // application's), and this mode needs no privilege even with vm.unprivileged_userfaultfd = 0.
  // real_syscall: the layer's own userfaultfd is not the application's (raw_syscalls.hpp).
  uffd_ = static_cast<int>(real_syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY));
  if (uffd_ < 0) return fail(std::string("userfaultfd is not available: ") + std::strerror(errno));
  uffdio_api api{};
  api.api = UFFD_API;
  api.features = UFFD_FEATURE_PAGEFAULT_FLAG_WP | UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED;
  if (::ioctl(uffd_, UFFDIO_API, &api) != 0) {
    const int error = errno;
    stop();
    return fail(std::string("userfaultfd has no asynchronous write-protection (UFFD_FEATURE_WP_ASYNC, Linux 6.7): ") +
                std::strerror(error));
  }
  owner_ = ::getpid();
  pagemap_ = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pagemap_ < 0) {
    const int error = errno;
    stop();
    return fail(std::string("cannot open /proc/self/pagemap: ") + std::strerror(error));
  }
  for (const auto& range : ranges)
    if (!register_range(range)) {
      const std::string why = reason_;
      stop();
      return fail(why);
    }
  // A query without protection shows whether PAGEMAP_SCAN exists before anyone relies on it.
  if (!ranges.empty() && !scan({ranges.front().start, ranges.front().start + kPageSize}, false, nullptr)) {
    const std::string why = reason_;
    stop();
    return fail(why);
  }
  return true;
}

bool DirtyTracker::register_range(PageRange range) {
  if (!aligned(range)) return fail("the range " + describe(range) + " is not page-aligned or empty");
  uffdio_register request{};
  request.range.start = range.start;
  request.range.len = range.end - range.start;
  request.mode = UFFDIO_REGISTER_MODE_WP;
  if (::ioctl(uffd_, UFFDIO_REGISTER, &request) != 0)
    return fail("cannot register " + describe(range) + " for write tracking: " + std::strerror(errno));
  registered_.push_back(range);
  return true;
}

bool DirtyTracker::usable() {
  if (!active()) return fail(reason_.empty() ? "write tracking is off" : reason_);
  // Both descriptors act on the process that opened them: a forked writer would scan (and
  // protect again) its parent's pages.
  if (::getpid() != owner_)
    return fail("the write tracking belongs to process " + std::to_string(owner_) +
                "; it cannot be used in a forked child");
  return true;
}

bool DirtyTracker::replaced(PageRange range) {
  if (!usable()) return false;
  if (!register_range(range)) return false;
  noted_.push_back(range);
  return true;
}

void DirtyTracker::note_written(PageRange range) {
  if (active() && range.start < range.end) noted_.push_back(range);
}

bool DirtyTracker::scan(PageRange range, bool write_protect, std::vector<PageRange>* written) {
  page_region regions[kRegionsPerScan];
  std::uintptr_t next = range.start;
  while (next < range.end) {
    pm_scan_arg arg{};
    arg.size = sizeof arg;
    // CHECK_WPASYNC: a mapping that is not registered makes the scan fail instead of being
    // skipped, which would report its writes as none.
    arg.flags = PM_SCAN_CHECK_WPASYNC | (write_protect ? PM_SCAN_WP_MATCHING : 0);
    arg.start = next;
    arg.end = range.end;
    arg.vec = reinterpret_cast<std::uintptr_t>(regions);
    arg.vec_len = kRegionsPerScan;
    arg.category_mask = PAGE_IS_WRITTEN;
    arg.return_mask = PAGE_IS_WRITTEN;
    const long count = ::ioctl(pagemap_, PAGEMAP_SCAN, &arg);
    if (count < 0) {
      const int error = errno;
      if (error == EPERM)
        return fail("a mapping inside " + describe(range) + " at " + hex(arg.walk_end) +
                    " is not registered for write tracking (mapped or moved since the tracking started)");
      if (error == ENOTTY || error == EINVAL)
        return fail(std::string("/proc/self/pagemap has no PAGEMAP_SCAN ioctl (Linux 6.7): ") + std::strerror(error));
      return fail("PAGEMAP_SCAN of " + describe(range) + " failed: " + std::strerror(error));
    }
    if (written)
      for (long i = 0; i < count; ++i) written->push_back({regions[i].start, regions[i].end});
    if (arg.walk_end <= next) return fail("PAGEMAP_SCAN of " + describe(range) + " made no progress");
    next = arg.walk_end;
  }
  return true;
}

bool DirtyTracker::collect(PageRange range, std::vector<PageRange>& written, bool rearm) {
  if (!usable()) return false;
  if (!aligned(range)) return fail("the range " + describe(range) + " is not page-aligned or empty");
  std::vector<PageRange> found;
  if (!scan(range, rearm, &found)) return false;
  // Ranges noted by the caller count inside `range`; a rearming collect consumes them there.
  std::vector<PageRange> still_noted;
  for (const auto& noted : noted_) {
    const PageRange inside{std::max(noted.start, range.start), std::min(noted.end, range.end)};
    if (inside.start < inside.end) found.push_back(inside);
    if (!rearm || inside.start >= inside.end) {
      still_noted.push_back(noted);
      continue;
    }
    if (noted.start < inside.start) still_noted.push_back({noted.start, inside.start});
    if (noted.end > inside.end) still_noted.push_back({inside.end, noted.end});
  }
  noted_ = std::move(still_noted);
  merge_ranges(found);
  written.insert(written.end(), found.begin(), found.end());
  return true;
}

bool DirtyTracker::registered(PageRange range) {
  if (!usable() || !aligned(range)) return false;
  const std::string kept = reason_;
  const bool whole = scan(range, false, nullptr);
  reason_ = kept;  // an unregistered mapping is an answer here, not the tracker's failure
  return whole;
}

void DirtyTracker::stop() {
  if (uffd_ >= 0) {
    // Closing the descriptor unregisters every range and drops the protection as well; the
    // explicit unregister keeps that independent of the descriptor's other copies (a fork). A
    // forked child only closes its copies: an unregister would act on the parent's memory.
    for (const auto& range : registered_) {
      if (::getpid() != owner_) break;
      uffdio_range request{range.start, range.end - range.start};
      ::ioctl(uffd_, UFFDIO_UNREGISTER, &request);
    }
    ::close(uffd_);
    uffd_ = -1;
  }
  if (pagemap_ >= 0) {
    ::close(pagemap_);
    pagemap_ = -1;
  }
  registered_.clear();
  noted_.clear();
}

std::string DirtyTracker::unavailable_reason() {
  void* page = ::mmap(nullptr, kPageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return std::string("cannot map a probe page: ") + std::strerror(errno);
  std::string why;
  {
    DirtyTracker probe;
    const PageRange range{reinterpret_cast<std::uintptr_t>(page), reinterpret_cast<std::uintptr_t>(page) + kPageSize};
    if (!probe.start({&range, 1})) why = probe.reason();
  }
  ::munmap(page, kPageSize);
  return why;
}

}  // namespace yadokari::memory
