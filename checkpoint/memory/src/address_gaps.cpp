#include "checkpoint/memory/src/address_gaps.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "checkpoint/memory/src/mapping_live.hpp"

namespace yadokari::memory {
namespace {

// A line is "lo-hi perms offset dev inode   name": a path is at most PATH_MAX, so 8 KiB holds any.
constexpr std::size_t kLineBuffer = 8192;

std::uintptr_t hex(const char*& p, const char* end) {
  std::uintptr_t v = 0;
  for (; p < end; ++p) {
    const char c = *p;
    if (c >= '0' && c <= '9')
      v = v * 16 + static_cast<std::uintptr_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      v = v * 16 + static_cast<std::uintptr_t>(c - 'a' + 10);
    else
      break;
  }
  return v;
}

bool parse_line(const char* p, const char* end, MapLine& line) {
  const char* q = p;
  line.lo = hex(q, end);
  if (q == p || q == end || *q != '-') return false;
  const char* r = ++q;
  line.hi = hex(q, end);
  if (q == r) return false;
  // The name starts at the first '/' or '[' after the five fixed fields (none of which has either).
  const char* name = q;
  while (name < end && *name != '/' && *name != '[') ++name;
  line.name = name;
  line.name_len = static_cast<std::size_t>(end - name);
  return true;
}

ssize_t read_some(int fd, char* to, std::size_t len) {
  for (;;) {
    const ssize_t n = read(fd, to, len);
    if (n >= 0 || errno != EINTR) return n;
  }
}

}  // namespace

bool scan_maps(MapVisitor visit, void* context) {
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[kLineBuffer];
  std::size_t have = 0;  // bytes in buf not yet consumed, from buf[0]
  bool ok = true, seen = false, skipping = false;
  for (;;) {
    const ssize_t n = read_some(fd, buf + have, sizeof buf - have);
    if (n < 0) {
      ok = false;
      break;
    }
    have += static_cast<std::size_t>(n);
    const bool eof = n == 0;
    std::size_t at = 0;
    for (;;) {
      const char* nl = static_cast<const char*>(std::memchr(buf + at, '\n', have - at));
      if (!nl && !(eof && at < have)) break;
      const char* end = nl ? nl : buf + have;
      MapLine line;
      if (!skipping && parse_line(buf + at, end, line)) {
        seen = true;
        if (!visit(line, context)) {
          close(fd);
          return true;
        }
      }
      skipping = false;
      at = static_cast<std::size_t>(end - buf) + (nl ? 1 : 0);
    }
    if (eof) break;
    if (at == 0 && have == sizeof buf) {
      // A line longer than the buffer: hand it on cut, skip the rest of it.
      MapLine line;
      if (!skipping && parse_line(buf, buf + have, line)) {
        seen = true;
        if (!visit(line, context)) break;
      }
      skipping = true;
      have = 0;
      continue;
    }
    std::memmove(buf, buf + at, have - at);
    have -= at;
  }
  close(fd);
  return ok && seen;
}

bool GapPlaceholders::hold_pass(std::uintptr_t from, Range keep, bool& raced) {
  // The gaps first, the placeholders after the file is closed: holding one changes the maps.
  struct Pass {
    GapPlaceholders* self;
    std::uintptr_t from;
    Range keep;
    std::uintptr_t prev = 0;
    int gaps = 0;
    std::uintptr_t area_top = 0;  // where the gap below the stack starts: decoys stay below it
    bool all = true, stack = false;
    void add(std::uintptr_t lo, std::uintptr_t hi) {
      if (lo >= hi || self->in_decoy(Range{lo, hi})) return;  // a decoy stays free
      if (self->count_ + gaps == kMaxHeld) {
        all = false;
        return;
      }
      self->gaps_[gaps++] = {lo, hi};
    }
  } pass{this, from, keep};
  const bool read = for_each_mapping([&pass](const MapLine& m) {
    if (m.name_len >= 7 && std::memcmp(m.name, "[stack]", 7) == 0) {
      pass.stack = true;  // the top of the mmap area: the gaps below it are all found
      pass.area_top = pass.prev;
      // Above the mmap area, below the stack: where the kernel's search goes when the top-down one
      // fails (its bottom-up fallback). Held too when only one gap is to stay free, but for the
      // kernel's guard gap below the stack, which is too small for a library.
      if (pass.keep.hi > pass.keep.lo && m.lo > kStackGuard && pass.prev < m.lo - kStackGuard)
        pass.add(pass.prev, m.lo - kStackGuard);
      return false;
    }
    const std::uintptr_t gap_lo = pass.prev > pass.from ? pass.prev : pass.from;
    pass.prev = m.hi;
    if (gap_lo >= m.lo) return true;
    const Range k = pass.keep;
    if (k.lo < m.lo && k.hi > gap_lo) {  // the kept range stays free: the parts around it are held
      pass.add(gap_lo, k.lo);
      pass.add(k.hi, m.lo);
    } else {
      pass.add(gap_lo, m.lo);
    }
    return true;
  });
  if (!read) return false;
  if (!pass.stack) return true;  // no main stack to bound the area: nothing is held, as before
  for (int i = 0; i < pass.gaps; ++i) hold_gap(gaps_[i], pass.area_top, raced);
  return pass.all;
}

bool GapPlaceholders::hold_one(Range piece) {
  void* want = reinterpret_cast<void*>(piece.lo);
  void* p = map_real().mmap(want, piece.hi - piece.lo, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == want) {
    held_[count_++] = piece;
    return true;
  }
  if (p != MAP_FAILED) map_real().munmap(p, piece.hi - piece.lo);  // a kernel without MAP_FIXED_NOREPLACE
  return false;
}

// The gap held whole, or, while decoys are wanted, as a placeholder page, a decoy, a page, a
// decoy, ... and the rest: the decoys are free from the start, so there is no moment in which the
// range kept for a library is the highest free gap and they are not there yet.
void GapPlaceholders::hold_gap(Range gap, std::uintptr_t area_top, bool& raced) {
  std::uintptr_t at = gap.lo;
  if (decoy_size_ > 0 && gap.lo >= decoys_above_ && gap.hi <= area_top) {
    while (decoy_count_ < kMaxDecoys && count_ < kMaxHeld - 1 && gap.hi - at >= 2 * kPage + decoy_size_) {
      if (!hold_one(Range{at, at + kPage})) {
        raced = true;
        return;  // another thread mapped here: the next pass reads the gap again
      }
      decoys_[decoy_count_++] = Range{at + kPage, at + kPage + decoy_size_};
      at += kPage + decoy_size_;
    }
  }
  if (count_ == kMaxHeld || !hold_one(Range{at, gap.hi})) raced = true;
}

bool GapPlaceholders::in_decoy(Range gap) const {
  for (int i = 0; i < decoy_count_; ++i)
    if (gap.lo >= decoys_[i].lo && gap.hi <= decoys_[i].hi) return true;
  return false;
}

void GapPlaceholders::leave_decoys(std::uintptr_t above, std::size_t size) {
  decoys_above_ = above;
  decoy_size_ = size / kPage * kPage;
}

bool GapPlaceholders::hold(std::uintptr_t from, Range keep) {
  // Another thread (or glibc's heap growing with brk) may take part of a gap between the reading and
  // the placeholder: then the maps are read again, the held placeholders staying.
  for (int pass = 0; pass < 4; ++pass) {
    bool raced = false;
    if (!hold_pass(from, keep, raced)) return false;
    if (!raced) return true;
  }
  return false;
}

bool GapPlaceholders::hold_above(std::uintptr_t from) { return hold(from, Range{}); }

bool GapPlaceholders::hold_all_but(std::uintptr_t lo, std::uintptr_t hi) { return hold(kLowestHeld, Range{lo, hi}); }

bool GapPlaceholders::top_gap_is(std::uintptr_t at, std::size_t len) {
  void* p = map_real().mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  map_real().munmap(p, len);
  return reinterpret_cast<std::uintptr_t>(p) == at;
}

void GapPlaceholders::release() {
  for (int i = 0; i < count_; ++i) map_real().munmap(reinterpret_cast<void*>(held_[i].lo), held_[i].hi - held_[i].lo);
  count_ = 0;
  decoy_count_ = 0;
  decoy_size_ = 0;
}

}  // namespace yadokari::memory
