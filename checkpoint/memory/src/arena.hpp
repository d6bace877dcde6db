#pragma once
// The application arena: a boundary-tag allocator (dlmalloc-like: exact small bins, log-spaced
// large bins, coalescing, a top chunk that grows by committing reserved address space).
// All its state lives in a header at the start of the arena itself, so restoring the arena's
// bytes restores the allocator too. Not thread-safe: the caller locks (malloc_interpose.cpp).
#include <cstddef>
#include <cstdint>

namespace yadokari::memory {

struct ArenaHeader;

class Arena {
 public:
  // Reserves [base, base+reserve) (PROT_NONE, MAP_FIXED_NOREPLACE), commits the first piece and
  // formats it. nullptr if the range cannot be had.
  static Arena* create(std::uintptr_t base, std::size_t reserve);
  // The arena at `base` whose bytes were just restored (or formatted by create()).
  static Arena* at(std::uintptr_t base) { return reinterpret_cast<Arena*>(base); }

  void* malloc(std::size_t n);
  void free(void* p);  // aborts with a message on a pointer that is not a live arena block
  void* realloc(void* p, std::size_t n);
  void* memalign(std::size_t align, std::size_t n);  // align: power of two
  std::size_t usable_size(const void* p) const;

  std::uintptr_t base() const;
  std::uintptr_t used_end() const;       // bytes beyond this are unused (capture stops here)
  std::uintptr_t committed_end() const;  // readable/writable up to here
  std::size_t bytes_in_use() const;
  // Checks every chunk and free list; returns nullptr or a description of the first problem.
  const char* check() const;

 private:
  ArenaHeader* h();
  const ArenaHeader* h() const;
};

// Makes [base, end) of a reserved arena readable/writable (before restoring bytes into it).
bool arena_commit(std::uintptr_t base, std::uintptr_t end);

}  // namespace yadokari::memory
