// Failure-free cost of dirty-page tracking (checkpoint/memory/src/dirty_pages.hpp), one run, ratios
// side by side: a write pass over N MB that is tracked vs one that is not, and collect() per GB.
//
//   dirty_tracking [--mb N] [--reps R] [--thp]
//
// Two buffers of N MB, both pre-faulted; per rep, in alternating order: a pass writing every byte
// of the untracked buffer, and the same pass over the tracked buffer right after collect() armed
// it (each page's first write clears its protection in the kernel: one fault per 4 KiB page; with
// --thp the buffers get huge pages, which the first protected write splits); then a second pass over the tracked buffer (no faults left), a collect()
// with every page written and one with none. For scale, the same pass over a fresh mapping (first
// touch: a fault and a zeroed page per page). Prints one JSON line; times are medians over reps.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "checkpoint/memory/src/dirty_pages.hpp"

using yadokari::memory::DirtyTracker;
using yadokari::memory::PageRange;

namespace {

double seconds_of(auto&& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

char* buffer(std::size_t bytes, bool thp) {
  void* at = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (at == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  ::madvise(at, bytes, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  std::memset(at, 1, bytes);  // pre-faulted: only the tracking's faults are left to measure
  return static_cast<char*>(at);
}

// Writes every byte, a value the compiler cannot fold away.
void write_pass(char* data, std::size_t bytes, int round) { std::memset(data, round & 0x7f, bytes); }

}  // namespace

int main(int argc, char** argv) {
  std::size_t mb = 256;
  int reps = 5;
  bool thp = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--mb" && i + 1 < argc)
      mb = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--reps" && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (arg == "--thp")
      thp = true;
    else {
      std::fprintf(stderr, "dirty_tracking: unknown argument '%s' (usage: [--mb N] [--reps R] [--thp])\n", argv[i]);
      return 2;
    }
  }
  if (mb == 0 || reps < 1) {
    std::fprintf(stderr, "dirty_tracking: --mb and --reps must be at least 1\n");
    return 2;
  }
  const std::size_t bytes = mb << 20;
  char* plain = buffer(bytes, thp);
  char* tracked = buffer(bytes, thp);
  const PageRange range{reinterpret_cast<std::uintptr_t>(tracked), reinterpret_cast<std::uintptr_t>(tracked) + bytes};
  DirtyTracker tracker;
  if (!tracker.start({&range, 1})) {
    std::fprintf(stderr, "dirty_tracking: %s\n", tracker.reason().c_str());
    return 1;
  }
  std::vector<PageRange> written;
  auto collect = [&] {
    written.clear();
    if (!tracker.collect(range, written)) {
      std::fprintf(stderr, "dirty_tracking: %s\n", tracker.reason().c_str());
      std::exit(1);
    }
  };
  collect();

  std::vector<double> untracked, first, second, collect_all, collect_none, fresh;
  std::size_t reported = 0;
  for (int rep = 0; rep < reps; ++rep) {
    auto tracked_pass = [&] {
      first.push_back(seconds_of([&] { write_pass(tracked, bytes, rep); }));
      second.push_back(seconds_of([&] { write_pass(tracked, bytes, rep + 1); }));
      collect_all.push_back(seconds_of(collect));
      reported = 0;
      for (const auto& r : written) reported += r.end - r.start;
      collect_none.push_back(seconds_of(collect));
    };
    void* scratch = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (scratch == MAP_FAILED) return 1;
    ::madvise(scratch, bytes, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    fresh.push_back(seconds_of([&] { write_pass(static_cast<char*>(scratch), bytes, rep); }));
    ::munmap(scratch, bytes);
    if (rep % 2 == 0) {
      untracked.push_back(seconds_of([&] { write_pass(plain, bytes, rep); }));
      tracked_pass();
    } else {
      tracked_pass();
      untracked.push_back(seconds_of([&] { write_pass(plain, bytes, rep); }));
    }
  }
  const double gb = static_cast<double>(bytes) / (1u << 30);
  std::printf(
      "{\"bench\":\"dirty_tracking\",\"mb\":%zu,\"reps\":%d,\"thp\":%s,\"reported_bytes\":%zu,"
      "\"untracked_pass_s\":%.6f,\"first_touch_pass_s\":%.6f,\"tracked_first_pass_s\":%.6f,\"tracked_second_pass_s\":%."
      "6f,"
      "\"ratio_first_pass\":%.3f,\"ratio_second_pass\":%.3f,\"first_pass_extra_s_per_gb\":%.4f,"
      "\"collect_all_written_s_per_gb\":%.4f,\"collect_none_written_s_per_gb\":%.4f}\n",
      mb, reps, thp ? "true" : "false", reported, median(untracked), median(fresh), median(first), median(second),
      median(first) / median(untracked), median(second) / median(untracked), (median(first) - median(untracked)) / gb,
      median(collect_all) / gb, median(collect_none) / gb);
  return reported == bytes ? 0 : 1;  // every page was written, so every page must be reported
}
