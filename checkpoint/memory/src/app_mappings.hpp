#pragma once
// Memory the application maps itself (mmap/mremap/munmap/mprotect in application context; see
// checkpoint/memory/README.md, "The application's mappings"). Like the arena, the mappings live
// in a region reserved at a fixed address (kMapBase, src/layout.hpp), so after a restart the same
// addresses are free whatever the fresh MPI library mapped. Every mapping the application owns is
// one entry of a bounded table in this library's .bss; munmap/mremap/mprotect of parts of an
// entry split, shrink, grow or move it, so the table always describes the memory exactly.
#include <cstddef>
#include <cstdint>

namespace yadokari::memory {

inline constexpr int kMaxMappings = 256;
inline constexpr std::size_t kMapPathMax = 1024;

enum class MapBacking : std::uint32_t {
  anon_private = 1,  // contents carried
  anon_shared = 2,   // contents carried (no other process shares it across a restart)
  file_private = 3,  // contents carried; restored as an anonymous private mapping
  file_shared = 4,   // not carried: the file is the contents; re-mapped from path and offset
};

// One mapping of the application, as stored in the table area (kind mappings, address 0).
struct MapRecord {
  std::uint64_t addr;
  std::uint64_t len;
  std::uint32_t prot;   // PROT_* now
  std::uint32_t flags;  // the mmap flags that matter again (MAP_NORESERVE, MAP_GROWSDOWN...)
  MapBacking backing;
  std::uint32_t accessible;     // ever had a protection other than PROT_NONE: its contents count
  std::uint64_t offset;         // file offset of addr (file mappings)
  std::uint64_t dev, ino;       // the file at mmap time
  std::uint64_t file_size;      // shared file mappings: the file's length at the capture (0 before one)
  std::uint32_t file_writable;  // shared file mappings: the descriptor mapped was open for writing
  std::uint32_t pad;
  char path[kMapPathMax];  // absolute (file mappings)
};

// Whether the contents of `r` travel in the image (a contents area at r.addr follows the table).
inline bool carries_contents(const MapRecord& r) { return r.backing != MapBacking::file_shared && r.accessible; }

// Restore, before anything is modified: every range is free (or ours), every shared file opens.
// On failure: false, one line in `why`, and nothing of this process changed.
bool prepare_mappings(const MapRecord* records, int n, char* why, std::size_t why_len);
// Undo prepare_mappings() (a later check refused the restore).
void abandon_mappings();
// Point of no return: map every entry (writable where contents follow) and adopt the table.
void apply_mappings();
// A contents area: where it goes (nullptr if it matches no restored mapping).
void* mapping_destination(std::uint64_t addr, std::uint64_t len);
// After every area was read: the final protections.
void finish_mappings();

}  // namespace yadokari::memory
