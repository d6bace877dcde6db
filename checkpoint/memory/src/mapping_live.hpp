#pragma once
// Shared between the interposers (mmap_interpose.cpp) and the capture/restore of mappings
// (mapping_image.cpp): the live table, its lock, libc's functions, the reserved region.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "checkpoint/memory/src/mapping_table.hpp"

namespace yadokari::memory {

struct MapReal {
  void* (*mmap)(void*, std::size_t, int, int, int, off_t);
  int (*munmap)(void*, std::size_t);
  void* (*mremap)(void*, std::size_t, std::size_t, int, ...);
  int (*mprotect)(void*, std::size_t, int);
};
const MapReal& map_real();

// The table and its lock (a spin lock: no allocation, usable from any thread).
MappingTable& live_mappings();
struct MappingsLocked {
  MappingsLocked();
  ~MappingsLocked();
  MappingsLocked(const MappingsLocked&) = delete;
  MappingsLocked& operator=(const MappingsLocked&) = delete;
};

// Whether the region at kMapBase is reserved in this process (load time).
bool map_region_reserved();
// Gives [lo, lo+len) inside the region back to the reservation (PROT_NONE, nothing committed).
bool map_reserve(std::uint64_t lo, std::uint64_t len);

// Why the table no longer describes the application's memory (a refusal at every checkpoint);
// nullptr while it does. Set under the lock.
const char* mapping_problem();
void set_mapping_problem(const char* what, std::uint64_t addr);

}  // namespace yadokari::memory
