// Dirty-page tracking: pages written on purpose are reported, exactly those, across the ways the
// memory layer's ranges change (mprotect commits, kernel writes, fork, a mapping replaced).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "checkpoint/memory/src/dirty_pages.hpp"

using namespace yadokari::memory;

namespace {

constexpr std::uintptr_t kPage = 4096;

class Mapping {
 public:
  Mapping(std::size_t pages, int prot) : size_(pages * kPage) {
    base_ = static_cast<char*>(::mmap(nullptr, size_, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    REQUIRE(base_ != MAP_FAILED);
  }
  ~Mapping() { ::munmap(base_, size_); }
  char* page(std::size_t n) const { return base_ + n * kPage; }
  PageRange pages(std::size_t first, std::size_t end) const {
    return {reinterpret_cast<std::uintptr_t>(page(first)), reinterpret_cast<std::uintptr_t>(page(end))};
  }
  PageRange all() const { return pages(0, size_ / kPage); }

 private:
  char* base_;
  std::size_t size_;
};

std::vector<PageRange> collect(DirtyTracker& tracker, PageRange range, bool rearm = true) {
  std::vector<PageRange> written;
  INFO(tracker.reason());
  REQUIRE(tracker.collect(range, written, rearm));
  return written;
}

void touch(char* page, char value) { *static_cast<volatile char*>(page) = value; }

}  // namespace

TEST_CASE("dirty pages: this kernel can track written pages", "[dirty]") {
  CHECK(DirtyTracker::unavailable_reason() == "");
}

TEST_CASE("dirty pages: exactly the pages written since the last collect", "[dirty]") {
  Mapping m(64, PROT_READ | PROT_WRITE);
  for (int i = 0; i < 64; ++i) touch(m.page(i), 1);
  DirtyTracker tracker;
  const PageRange range = m.all();
  REQUIRE(tracker.start({&range, 1}));
  // Nothing was collected yet: every page present counts as written once.
  CHECK(collect(tracker, range) == std::vector<PageRange>{range});
  CHECK(collect(tracker, range).empty());

  touch(m.page(3), 2);
  touch(m.page(4), 2);
  touch(m.page(10), 2);
  touch(m.page(63), 2);
  (void)*static_cast<volatile char*>(m.page(20));  // a read is not a write
  CHECK(collect(tracker, range) == std::vector<PageRange>{m.pages(3, 5), m.pages(10, 11), m.pages(63, 64)});
  CHECK(collect(tracker, range).empty());
}

TEST_CASE("dirty pages: without rearm the same pages are reported again", "[dirty]") {
  Mapping m(16, PROT_READ | PROT_WRITE);
  DirtyTracker tracker;
  const PageRange range = m.all();
  REQUIRE(tracker.start({&range, 1}));
  collect(tracker, range);
  touch(m.page(5), 1);
  CHECK(collect(tracker, range, false) == std::vector<PageRange>{m.pages(5, 6)});
  CHECK(collect(tracker, range, false) == std::vector<PageRange>{m.pages(5, 6)});
  CHECK(collect(tracker, range, true) == std::vector<PageRange>{m.pages(5, 6)});
  CHECK(collect(tracker, range).empty());
}

TEST_CASE("dirty pages: pages never touched, then written, are reported", "[dirty]") {
  Mapping m(64, PROT_READ | PROT_WRITE);
  DirtyTracker tracker;
  const PageRange range = m.all();
  REQUIRE(tracker.start({&range, 1}));
  collect(tracker, range);
  touch(m.page(7), 1);
  touch(m.page(40), 1);
  CHECK(collect(tracker, range) == std::vector<PageRange>{m.pages(7, 8), m.pages(40, 41)});
}

TEST_CASE("dirty pages: a reservation committed by mprotect, as the arena does", "[dirty]") {
  // 4 MiB reserved PROT_NONE; the first MiB committed, then the second, like the arena's top chunk.
  Mapping m(1024, PROT_NONE);
  DirtyTracker tracker;
  const PageRange reserved = m.all();
  REQUIRE(tracker.start({&reserved, 1}));
  REQUIRE(::mprotect(m.page(0), 256 * kPage, PROT_READ | PROT_WRITE) == 0);
  collect(tracker, m.pages(0, 256));
  touch(m.page(2), 1);
  REQUIRE(::mprotect(m.page(256), 256 * kPage, PROT_READ | PROT_WRITE) == 0);
  touch(m.page(300), 1);
  // The newly committed MiB was never collected: all of it counts as written, once.
  CHECK(collect(tracker, m.pages(0, 512)) == std::vector<PageRange>{m.pages(2, 3), m.pages(256, 512)});
  CHECK(collect(tracker, m.pages(0, 512)).empty());

  // A protected page made read-only and writable again stays protected: the write is seen.
  REQUIRE(::mprotect(m.page(5), kPage, PROT_READ) == 0);
  REQUIRE(::mprotect(m.page(5), kPage, PROT_READ | PROT_WRITE) == 0);
  CHECK(collect(tracker, m.pages(0, 512)).empty());
  touch(m.page(5), 1);
  CHECK(collect(tracker, m.pages(0, 512)) == std::vector<PageRange>{m.pages(5, 6)});
}

TEST_CASE("dirty pages: writes by the kernel and pages dropped by madvise count", "[dirty]") {
  Mapping m(16, PROT_READ | PROT_WRITE);
  for (int i = 0; i < 16; ++i) touch(m.page(i), 1);
  DirtyTracker tracker;
  const PageRange range = m.all();
  REQUIRE(tracker.start({&range, 1}));
  collect(tracker, range);
  const int fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::read(fd, m.page(9), 16) == 16);
  ::close(fd);
  REQUIRE(::madvise(m.page(12), kPage, MADV_DONTNEED) == 0);  // its contents become zero
  CHECK(collect(tracker, range) == std::vector<PageRange>{m.pages(9, 10), m.pages(12, 13)});
}

TEST_CASE("dirty pages: a forked child drops the protection, the parent keeps tracking", "[dirty]") {
  Mapping m(16, PROT_READ | PROT_WRITE);
  for (int i = 0; i < 16; ++i) touch(m.page(i), 1);
  DirtyTracker tracker;
  const PageRange range = m.all();
  REQUIRE(tracker.start({&range, 1}));
  collect(tracker, range);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The writer child: its writes are its own (copy-on-write) and it must not scan, because
    // the inherited pagemap descriptor is the parent's.
    touch(m.page(1), 9);
    std::vector<PageRange> written;
    const bool refused = !tracker.collect(range, written);
    ::_exit(refused && tracker.reason().find("forked child") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  touch(m.page(2), 9);
  CHECK(*m.page(1) == 1);
  CHECK(collect(tracker, range) == std::vector<PageRange>{m.pages(2, 3)});
}

TEST_CASE("dirty pages: a mapping replaced inside a tracked range", "[dirty]") {
  Mapping m(64, PROT_NONE);
  DirtyTracker tracker;
  const PageRange range = m.all();
  REQUIRE(tracker.start({&range, 1}));
  REQUIRE(::mprotect(m.page(0), 16 * kPage, PROT_READ | PROT_WRITE) == 0);
  collect(tracker, m.pages(0, 16));
  // An application mmap in the reserved region: MAP_FIXED replaces the registered mapping.
  REQUIRE(::mmap(m.page(32), 8 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
          m.page(32));
  touch(m.page(33), 1);
  std::vector<PageRange> written;
  CHECK_FALSE(tracker.collect(range, written));
  CHECK(tracker.reason().find("is not registered for write tracking") != std::string::npos);
  // Pages outside the new mapping are still tracked as before.
  CHECK(collect(tracker, m.pages(0, 16)).empty());

  REQUIRE(tracker.replaced(m.pages(32, 40)));
  CHECK(collect(tracker, m.pages(0, 40)) == std::vector<PageRange>{m.pages(32, 40)});
  touch(m.page(34), 1);
  CHECK(collect(tracker, m.pages(0, 40)) == std::vector<PageRange>{m.pages(34, 35)});
}

TEST_CASE("dirty pages: registered() sees a mapping made again at the same address, consuming nothing", "[dirty]") {
  Mapping m(16, PROT_READ | PROT_WRITE);
  DirtyTracker tracker;
  const PageRange range = m.pages(4, 12);
  REQUIRE(tracker.start({&range, 1}));
  collect(tracker, range);
  touch(m.page(5), 1);
  CHECK(tracker.registered(range));
  CHECK(tracker.reason().empty());
  // Asking did not consume the write.
  CHECK(collect(tracker, range) == std::vector<PageRange>{m.pages(5, 6)});
  // munmap + mmap at the very same address (the application's mappings do this): a new mapping.
  REQUIRE(::munmap(m.page(4), 8 * kPage) == 0);
  REQUIRE(::mmap(m.page(4), 8 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
          m.page(4));
  CHECK_FALSE(tracker.registered(range));
  CHECK(tracker.reason().empty());
  REQUIRE(tracker.replaced(range));
  CHECK(tracker.registered(range));
  CHECK(collect(tracker, range) == std::vector<PageRange>{range});
  CHECK(collect(tracker, range).empty());
}

TEST_CASE("dirty pages: bad ranges and a stopped tracker", "[dirty]") {
  Mapping m(4, PROT_READ | PROT_WRITE);
  DirtyTracker tracker;
  const PageRange odd{reinterpret_cast<std::uintptr_t>(m.page(0)) + 1, reinterpret_cast<std::uintptr_t>(m.page(1))};
  CHECK_FALSE(tracker.start({&odd, 1}));
  CHECK(tracker.reason().find("is not page-aligned or empty") != std::string::npos);
  CHECK_FALSE(tracker.active());
  std::vector<PageRange> written;
  CHECK_FALSE(tracker.collect(m.all(), written));
  const PageRange range = m.all();
  REQUIRE(tracker.start({&range, 1}));
  tracker.stop();
  CHECK_FALSE(tracker.collect(range, written));
  CHECK(tracker.reason() == "write tracking is off");
}

TEST_CASE("dirty pages: merge_ranges", "[dirty]") {
  std::vector<PageRange> ranges{{8, 12}, {0, 4}, {4, 6}, {10, 16}, {20, 24}};
  merge_ranges(ranges);
  CHECK(ranges == std::vector<PageRange>{{0, 6}, {8, 16}, {20, 24}});
}
