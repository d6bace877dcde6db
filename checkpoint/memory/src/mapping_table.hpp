#pragma once
// The table of the application's mappings (app_mappings.hpp), as a plain data structure: sorted
// by address, bounded, no system calls. The interposers (mmap_interpose.cpp) keep it exact; the
// capture and the restore (mapping_image.cpp) read and replace it.
#include <cstdint>

#include "checkpoint/memory/src/app_mappings.hpp"

namespace yadokari::memory {

class MappingTable {
 public:
  int size() const { return count_; }
  const MapRecord& at(int i) const { return entries_[i]; }
  bool full() const { return count_ == kMaxMappings; }

  // Lowest address of a free range of `len` bytes inside [lo, hi) (entries inside count as
  // taken), or 0. Deterministic: the same table gives the same address in every incarnation.
  std::uint64_t find_gap(std::uint64_t len, std::uint64_t lo, std::uint64_t hi) const;
  // Whether any entry overlaps [lo, hi), or every byte of it is inside entries.
  bool overlaps(std::uint64_t lo, std::uint64_t hi) const;
  bool covers(std::uint64_t lo, std::uint64_t hi) const;
  // The entry holding all of [lo, hi), or -1.
  int containing(std::uint64_t lo, std::uint64_t hi) const;

  // Each returns false when the table ran out of entries (the table is then still consistent:
  // it describes less memory than the application has, which the capture refuses).
  bool insert(const MapRecord& r);
  // Drops [lo, hi) from every entry (an entry across a boundary is split, file offsets follow).
  bool remove(std::uint64_t lo, std::uint64_t hi);
  // The protection of [lo, hi) where entries cover it.
  bool protect(std::uint64_t lo, std::uint64_t hi, std::uint32_t prot);

  void assign(const MapRecord* records, int n);

 private:
  bool split_at(std::uint64_t addr);  // an entry across addr becomes two
  MapRecord entries_[kMaxMappings];
  int count_ = 0;
};

}  // namespace yadokari::memory
