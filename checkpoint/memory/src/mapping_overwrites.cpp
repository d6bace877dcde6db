// Stores through the application's shared file mappings, for the overwrite journal
// (overwrite_journal.hpp). Nothing sees a store into a MAP_SHARED mapping of a file, and the file
// is what such a mapping holds: a run that fails after the checkpoint leaves its stores in the
// file, and the restarted run would map them back. So the file bytes under a mapping are kept
// before the application can write them: when a generation starts, under every writable shared
// file mapping; later, under a range that becomes writable (an mmap with PROT_WRITE, an mprotect
// that adds it, an mremap that grows such a mapping), before that call returns.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>

#include "checkpoint/memory/overwrite_journal.hpp"
#include "checkpoint/memory/src/app_mappings.hpp"
#include "checkpoint/memory/src/journal_io.hpp"
#include "checkpoint/memory/src/mapping_live.hpp"
#include "checkpoint/memory/src/overwrite_journal_note.hpp"
#include "checkpoint/memory/src/routing.hpp"

namespace yadokari::memory {
namespace {

// File ranges kept in the current generation: a program that maps the same file at every step
// pays one record per generation, not one per mmap. Forgetting one only keeps it again.
struct KeptRange {
  std::uint64_t serial, dev, ino, from, to;
};
constexpr int kKeptRanges = 64;
KeptRange g_kept[kKeptRanges];
int g_next_slot;
std::atomic<bool> g_lock_flag{false};  // g_kept, g_writable
MapRecord g_writable[kMaxMappings];    // a generation start's copy of the writable ones (.bss)

bool writable_file_shared(const MapRecord& r) {
  return r.backing == MapBacking::file_shared && (r.prot & PROT_WRITE) && (r.dev || r.ino);
}

bool already_kept(std::uint64_t serial, const MapRecord& r, std::uint64_t from, std::uint64_t to) {
  for (const KeptRange& k : g_kept)
    if (k.serial == serial && k.dev == r.dev && k.ino == r.ino && k.from <= from && to <= k.to) return true;
  return false;
}

// Keeps the bytes at file offsets [from, to) of the file behind `r`, up to its end. Under the lock.
void keep_file_range(const MapRecord& r, std::uint64_t from, std::uint64_t to) {
  const std::uint64_t serial = overwrite_generation_serial();
  if (from >= to || already_kept(serial, r, from, to)) return;
  const int reader = raw_openat(AT_FDCWD, r.path, O_RDONLY);
  struct stat st {};
  // A file replaced since it was mapped is not the mapping's: the capture refuses that mapping.
  if (reader >= 0 && fstat(reader, &st) == 0 && st.st_dev == r.dev && st.st_ino == r.ino) {
    to = std::min(to, static_cast<std::uint64_t>(st.st_size));  // pages past the end hold no file bytes
    if (from < to && keep_before_overwrite(reader, r.path, from, to - from)) {
      g_kept[g_next_slot] = KeptRange{serial, r.dev, r.ino, from, to};
      g_next_slot = (g_next_slot + 1) % kKeptRanges;
    }
  }
  raw_close(reader);
}

}  // namespace

void before_mapping_writes(const MapRecord& r, std::uint64_t addr, std::uint64_t len) {
  if (!t_app || !overwrite_journal_on() || r.backing != MapBacking::file_shared || (!r.dev && !r.ino)) return;
  const int saved = errno;
  const std::uint64_t from = r.offset + (addr - r.addr);
  {
    JournalLock l(g_lock_flag);
    keep_file_range(r, from, from + len);
  }
  errno = saved;
}

void before_protection_adds_write(std::uint64_t lo, std::uint64_t hi) {
  if (!t_app || !overwrite_journal_on()) return;
  // One entry at a time, the table unlocked while its bytes are read and synced.
  for (std::uint64_t at = lo; at < hi;) {
    MapRecord r{};
    bool found = false;
    {
      MappingsLocked l;
      const MappingTable& t = live_mappings();
      for (int i = 0; i < t.size() && !found; ++i) {
        const MapRecord& e = t.at(i);
        if (e.addr + e.len <= at || e.addr >= hi) continue;
        if (e.backing == MapBacking::file_shared && !(e.prot & PROT_WRITE)) {
          r = e;
          found = true;
        }
      }
    }
    if (!found) return;
    const std::uint64_t from = std::max(at, r.addr), to = std::min(hi, r.addr + r.len);
    before_mapping_writes(r, from, to - from);
    at = to;
  }
}

void keep_under_writable_shared_mappings() {
  if (!overwrite_journal_on()) return;
  const int saved = errno;
  JournalLock l(g_lock_flag);
  int n = 0;
  {
    MappingsLocked m;
    const MappingTable& t = live_mappings();
    for (int i = 0; i < t.size(); ++i)
      if (writable_file_shared(t.at(i))) g_writable[n++] = t.at(i);
  }
  for (int i = 0; i < n; ++i)
    keep_file_range(g_writable[i], g_writable[i].offset, g_writable[i].offset + g_writable[i].len);
  errno = saved;
}

}  // namespace yadokari::memory
