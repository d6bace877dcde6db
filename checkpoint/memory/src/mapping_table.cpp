#include "checkpoint/memory/src/mapping_table.hpp"

#include <cstring>

namespace yadokari::memory {
namespace {

std::uint64_t end_of(const MapRecord& r) { return r.addr + r.len; }

}  // namespace

std::uint64_t MappingTable::find_gap(std::uint64_t len, std::uint64_t lo, std::uint64_t hi) const {
  std::uint64_t at = lo;
  for (int i = 0; i < count_; ++i) {
    const MapRecord& e = entries_[i];
    if (end_of(e) <= lo || e.addr >= hi) continue;
    if (e.addr >= at && e.addr - at >= len) return at;
    if (end_of(e) > at) at = end_of(e);
  }
  return hi > at && hi - at >= len ? at : 0;
}

bool MappingTable::overlaps(std::uint64_t lo, std::uint64_t hi) const {
  for (int i = 0; i < count_; ++i)
    if (entries_[i].addr < hi && end_of(entries_[i]) > lo) return true;
  return false;
}

bool MappingTable::covers(std::uint64_t lo, std::uint64_t hi) const {
  std::uint64_t at = lo;
  for (int i = 0; i < count_ && at < hi; ++i) {
    const MapRecord& e = entries_[i];
    if (end_of(e) <= at) continue;
    if (e.addr > at) return false;
    at = end_of(e);
  }
  return at >= hi;
}

int MappingTable::containing(std::uint64_t lo, std::uint64_t hi) const {
  for (int i = 0; i < count_; ++i)
    if (entries_[i].addr <= lo && end_of(entries_[i]) >= hi) return i;
  return -1;
}

bool MappingTable::insert(const MapRecord& r) {
  if (full()) return false;
  int i = count_;
  while (i > 0 && entries_[i - 1].addr > r.addr) {
    entries_[i] = entries_[i - 1];
    --i;
  }
  entries_[i] = r;
  ++count_;
  return true;
}

bool MappingTable::split_at(std::uint64_t addr) {
  for (int i = 0; i < count_; ++i) {
    MapRecord& e = entries_[i];
    if (e.addr >= addr || end_of(e) <= addr) continue;
    if (full()) return false;
    MapRecord right = e;
    right.addr = addr;
    right.len = end_of(e) - addr;
    if (e.backing == MapBacking::file_private || e.backing == MapBacking::file_shared) right.offset += addr - e.addr;
    e.len = addr - e.addr;
    return insert(right);
  }
  return true;
}

bool MappingTable::remove(std::uint64_t lo, std::uint64_t hi) {
  bool ok = split_at(lo) && split_at(hi);
  int kept = 0;
  for (int i = 0; i < count_; ++i) {
    const MapRecord& e = entries_[i];
    if (e.addr >= lo && end_of(e) <= hi) continue;
    // Without a free entry to split with, cut what lies inside [lo, hi) off the entry's ends.
    MapRecord r = e;
    if (r.addr < hi && end_of(r) > lo) {
      if (r.addr >= lo) {
        std::uint64_t cut = hi - r.addr;
        if (r.backing == MapBacking::file_private || r.backing == MapBacking::file_shared) r.offset += cut;
        r.addr = hi;
        r.len -= cut;
      } else {
        r.len = lo - r.addr;
      }
    }
    entries_[kept++] = r;
  }
  count_ = kept;
  return ok;
}

bool MappingTable::protect(std::uint64_t lo, std::uint64_t hi, std::uint32_t prot) {
  bool ok = split_at(lo) && split_at(hi);
  for (int i = 0; i < count_; ++i) {
    MapRecord& e = entries_[i];
    if (e.addr < lo || end_of(e) > hi) continue;
    e.prot = prot;
    if (prot != 0) e.accessible = 1;
  }
  return ok;
}

void MappingTable::assign(const MapRecord* records, int n) {
  count_ = 0;
  for (int i = 0; i < n && i < kMaxMappings; ++i) insert(records[i]);
}

}  // namespace yadokari::memory
