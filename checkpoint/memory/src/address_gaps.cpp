#include "address_gaps.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "mapping_live.hpp"

namespace yadokari::memory {

bool read_maps(std::vector<NamedRange>& out, std::uintptr_t& stack_lo) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::string text;
  char buf[8192];
  text.reserve(64 * 1024);
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(fd);
  stack_lo = 0;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    unsigned long long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx", &lo, &hi) != 2) continue;
    std::size_t name = line.find('/');
    if (name == std::string::npos) name = line.find('[');
    out.push_back({static_cast<std::uintptr_t>(lo), static_cast<std::uintptr_t>(hi),
                   name == std::string::npos ? "" : line.substr(name)});
    if (line.find("[stack]") != std::string::npos) stack_lo = static_cast<std::uintptr_t>(lo);
  }
  return !out.empty();
}

std::uintptr_t mmap_ceiling(const std::vector<NamedRange>& maps, std::uintptr_t stack_lo) {
  std::uintptr_t ceiling = 0;
  for (const NamedRange& m : maps)
    if (m.hi <= stack_lo && m.hi > ceiling) ceiling = m.hi;
  return ceiling;
}

bool GapPlaceholders::hold_pass(std::uintptr_t from, bool& raced) {
  std::vector<NamedRange> maps;
  std::uintptr_t stack_lo = 0;
  if (!read_maps(maps, stack_lo)) return false;
  const std::uintptr_t ceiling = mmap_ceiling(maps, stack_lo);
  bool all = true;
  std::uintptr_t prev = 0;
  for (const NamedRange& m : maps) {
    const std::uintptr_t gap_lo = prev > from ? prev : from;
    const std::uintptr_t gap_hi = m.lo < ceiling ? m.lo : ceiling;
    prev = m.hi;
    if (gap_lo >= gap_hi) continue;
    if (count_ == kMaxHeld) {
      all = false;
      continue;
    }
    void* want = reinterpret_cast<void*>(gap_lo);
    void* p = map_real().mmap(want, gap_hi - gap_lo, PROT_NONE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == want) {
      held_[count_++] = {gap_lo, gap_hi};
    } else {
      if (p != MAP_FAILED) map_real().munmap(p, gap_hi - gap_lo);  // a kernel without MAP_FIXED_NOREPLACE
      raced = true;
    }
  }
  return all;
}

bool GapPlaceholders::hold_above(std::uintptr_t from) {
  // Reading the maps allocates, and glibc's heap may grow with brk into the gap above it before the
  // placeholder is made: then that gap is read again.
  for (int pass = 0; pass < 4; ++pass) {
    bool raced = false;
    if (!hold_pass(from, raced)) return false;
    if (!raced) return true;
  }
  return false;
}

void GapPlaceholders::release() {
  for (int i = 0; i < count_; ++i) map_real().munmap(reinterpret_cast<void*>(held_[i].lo), held_[i].hi - held_[i].lo);
  count_ = 0;
}

}  // namespace yadokari::memory
