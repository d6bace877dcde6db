// The application's mappings in an image (app_mappings.hpp): the refusal check, the capture (the
// table, then each mapping's contents) and the restore (check, map, fill, protect).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/areas.hpp"
#include "checkpoint/memory/src/app_mappings.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/fd_table.hpp"
#include "checkpoint/memory/src/layout.hpp"
#include "checkpoint/memory/src/mapping_image.hpp"
#include "checkpoint/memory/src/mapping_live.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/written_files_note.hpp"

namespace yadokari::memory {
namespace {

MapRecord g_snapshot[kMaxMappings];  // the capture's copy of the table (.bss: not on the stack)
int g_snapshot_count;
MapRecord g_incoming[kMaxMappings];  // the image's table during a restore
int g_incoming_count;
int g_files[kMaxMappings];  // shared files reopened by prepare_mappings()
bool g_probed[kMaxMappings];
std::uint64_t g_filled[kMaxMappings];  // bytes of each restored mapping its contents area filled

constexpr int kReadWrite = PROT_READ | PROT_WRITE;
static_assert(kMaxWrittenFiles >= kMaxAppFds + kMaxMappings, "every reopened descriptor and shared file mapping");

void* as_ptr(std::uint64_t a) { return reinterpret_cast<void*>(a); }
unsigned long long ull(std::uint64_t v) { return static_cast<unsigned long long>(v); }

void check_for_capture() {
  MappingsLocked l;
  if (const char* problem = mapping_problem()) refusal_add(problem);
  const MappingTable& t = live_mappings();
  for (int i = 0; i < t.size(); ++i) {
    const MapRecord& r = t.at(i);
    if (r.backing != MapBacking::file_shared) continue;
    char line[kMapPathMax + 200];
    struct stat st {};
    if (r.dev == 0 && r.ino == 0)
      std::snprintf(line, sizeof line, "the application's shared mapping at %#llx of %s is not of a regular file",
                    ull(r.addr), r.path);
    else if (stat(r.path, &st) != 0 || st.st_dev != r.dev || st.st_ino != r.ino)
      std::snprintf(line, sizeof line,
                    "the file %s behind the application's shared mapping at %#llx was deleted or replaced", r.path,
                    ull(r.addr));
    else
      continue;
    refusal_add(line);
  }
}

__attribute__((constructor)) void register_check() { register_refusal_check(check_for_capture); }

// Whether the page at `page` can be read: through the kernel, so a page beyond the end of a
// mapped file answers EFAULT instead of SIGBUS. Only EFAULT says no: where the call itself is not
// allowed (ENOSYS, EPERM under a sandbox) every page counts as readable, as before this probe,
// rather than a mapping's contents being dropped.
bool page_readable(std::uint64_t page) {
  static char probe[kPage];
  iovec local{probe, kPage}, remote{as_ptr(page), kPage};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(kPage) || errno != EFAULT;
}

// How much of a mapping can be read. A private file mapping longer than its file ends in pages
// that raise SIGBUS (also pages written before the file was cut: truncation discards them), so
// the readable part is always a prefix; found by bisection. Every other mapping is readable whole.
std::uint64_t readable_length(const MapRecord& r) {
  if (r.backing != MapBacking::file_private || page_readable(r.addr + r.len - kPage)) return r.len;
  std::uint64_t lo = 0, hi = r.len / kPage - 1;  // pages below lo are readable, page hi is not
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (page_readable(r.addr + mid * kPage))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo * kPage;
}

}  // namespace

bool capture_mapping_table(AreaSink& sink) {
  {
    MappingsLocked l;
    const MappingTable& t = live_mappings();
    g_snapshot_count = t.size();
    for (int i = 0; i < g_snapshot_count; ++i) g_snapshot[i] = t.at(i);
  }
  if (g_snapshot_count == 0) return true;
  // The contents of a shared file mapping are the file: on disk before the epoch can commit. Its
  // length is part of it: a restart cuts back what the failed run added (apply_mappings).
  for (int i = 0; i < g_snapshot_count; ++i) {
    MapRecord& r = g_snapshot[i];
    if (r.backing != MapBacking::file_shared) continue;
    msync(as_ptr(r.addr), r.len, MS_SYNC);
    struct stat st {};
    if (stat(r.path, &st) == 0)
      r.file_size = static_cast<std::uint64_t>(st.st_size);
    else
      r.file_writable = 0;  // no length known: never cut (the restore refuses a missing file anyway)
  }
  return sink.area(AreaKind::mappings, 0, sizeof(MapRecord) * static_cast<unsigned>(g_snapshot_count), 0,
                   "application mappings", g_snapshot);
}

bool capture_mapping_contents(AreaSink& sink) {
  bool ok = true;
  for (int i = 0; ok && i < g_snapshot_count; ++i) {
    const MapRecord& r = g_snapshot[i];
    if (!carries_contents(r)) continue;
    // A guard page that was accessible once is read through a temporary PROT_READ.
    const bool unreadable = !(r.prot & PROT_READ);
    if (unreadable && map_real().mprotect(as_ptr(r.addr), r.len, PROT_READ) != 0) return false;
    // What lies beyond the readable part comes back as zeros (an anonymous mapping).
    if (const std::uint64_t len = readable_length(r))
      ok = sink.area(AreaKind::mappings, r.addr, len, r.prot, "application mapping", as_ptr(r.addr));
    if (unreadable) map_real().mprotect(as_ptr(r.addr), r.len, static_cast<int>(r.prot));
  }
  return ok;
}

bool prepare_mappings(const MapRecord* records, int n, char* why, std::size_t why_len) {
  g_incoming_count = n;
  for (int i = 0; i < n; ++i) {
    g_incoming[i] = records[i];
    g_files[i] = -1;
    g_probed[i] = false;
  }
  for (int i = 0; i < n; ++i) {
    const MapRecord& r = g_incoming[i];
    if (r.len == 0 || (r.addr | r.len) % kPage != 0 || r.addr + r.len < r.addr) {
      std::snprintf(why, why_len, "the image's mapping table is malformed");
      return abandon_mappings(), false;
    }
    if (in_map_region(r.addr, r.addr + r.len)) {
      if (!map_region_reserved()) {
        std::snprintf(why, why_len, "the region for the application's mappings is not reserved in this process");
        return abandon_mappings(), false;
      }
    } else {
      void* p = map_real().mmap(as_ptr(r.addr), r.len, PROT_NONE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
      if (p != as_ptr(r.addr)) {
        if (p != MAP_FAILED) map_real().munmap(p, r.len);
        std::snprintf(why, why_len,
                      "the application's mapping at %#llx (%llu bytes) cannot be restored: the address range is in use "
                      "in this process",
                      ull(r.addr), ull(r.len));
        return abandon_mappings(), false;
      }
      g_probed[i] = true;
    }
    if (r.backing == MapBacking::file_shared) {
      // Read-write where the file allows it, whatever the protection now: a read-only shared
      // mapping of a file opened read-write may be made writable later (mprotect).
      g_files[i] = open(r.path, O_RDWR | O_CLOEXEC);
      if (g_files[i] < 0 && !(r.prot & PROT_WRITE) && (errno == EACCES || errno == EROFS || errno == EPERM))
        g_files[i] = open(r.path, O_RDONLY | O_CLOEXEC);
      if (g_files[i] < 0) {
        std::snprintf(why, why_len,
                      "the file %s behind the application's shared mapping at %#llx cannot be reopened: %s", r.path,
                      ull(r.addr), std::strerror(errno));
        return abandon_mappings(), false;
      }
    }
  }
  return true;
}

void abandon_mappings() {
  for (int i = 0; i < g_incoming_count; ++i) {
    if (g_probed[i]) map_real().munmap(as_ptr(g_incoming[i].addr), g_incoming[i].len);
    if (g_files[i] >= 0) close(g_files[i]);
    g_probed[i] = false;
    g_files[i] = -1;
  }
  g_incoming_count = 0;
}

void apply_mappings() {
  for (int i = 0; i < g_incoming_count; ++i) {
    const MapRecord& r = g_incoming[i];
    int flags = static_cast<int>(r.flags) | MAP_FIXED;
    void* p;
    if (r.backing == MapBacking::file_shared) {
      p = map_real().mmap(as_ptr(r.addr), r.len, static_cast<int>(r.prot), flags | MAP_SHARED, g_files[i],
                          static_cast<off_t>(r.offset));
      close(g_files[i]);
      g_files[i] = -1;
      // A file the application could write through the mapping is cut back to its length at the
      // checkpoint with the files written then (written_files.hpp), whatever path grew it since.
      if (r.file_writable) note_written_file(r.path, static_cast<std::int64_t>(r.file_size));
    } else {
      flags |= MAP_ANONYMOUS | (r.backing == MapBacking::anon_shared ? MAP_SHARED : MAP_PRIVATE);
      p = map_real().mmap(as_ptr(r.addr), r.len, carries_contents(r) ? kReadWrite : static_cast<int>(r.prot), flags, -1,
                          0);
    }
    if (p != as_ptr(r.addr)) {
      char a[24];
      say("cannot map the application's mapping at ", format_x64(a, r.addr), ": ", std::strerror(errno));
      fatal("the process is half restored and cannot continue");
    }
    g_probed[i] = false;
    g_filled[i] = 0;
  }
  MappingsLocked l;
  live_mappings().assign(g_incoming, g_incoming_count);
}

void* mapping_destination(std::uint64_t addr, std::uint64_t len) {
  // The readable prefix of a private file mapping may be shorter than the mapping.
  for (int i = 0; i < g_incoming_count; ++i)
    if (g_incoming[i].addr == addr && len <= g_incoming[i].len && carries_contents(g_incoming[i])) {
      g_filled[i] = len;
      return as_ptr(addr);
    }
  return nullptr;
}

namespace {

// The pages of a private file mapping past its file's end raised SIGBUS when read; so do they
// again: they are mapped from an empty file (a memfd closed at once), not left as zeros.
void map_past_end_of_file(const MapRecord& r, std::uint64_t filled) {
  const std::uint64_t start = (filled + kPage - 1) / kPage * kPage;
  if (start >= r.len) return;
  const int empty = static_cast<int>(syscall(SYS_memfd_create, "yadokari-past-end-of-file", MFD_CLOEXEC));
  void* p = empty < 0 ? MAP_FAILED
                      : map_real().mmap(as_ptr(r.addr + start), r.len - start, static_cast<int>(r.prot),
                                        MAP_PRIVATE | MAP_FIXED, empty, 0);
  const int error = errno;
  if (empty >= 0) close(empty);
  if (p != as_ptr(r.addr + start)) {
    char a[24];
    say("cannot map the end of the application's file mapping at ", format_x64(a, r.addr), ": ", std::strerror(error));
    fatal("the process is half restored and cannot continue");
  }
}

}  // namespace

void finish_mappings() {
  for (int i = 0; i < g_incoming_count; ++i) {
    const MapRecord& r = g_incoming[i];
    if (carries_contents(r) && static_cast<int>(r.prot) != kReadWrite)
      map_real().mprotect(as_ptr(r.addr), r.len, static_cast<int>(r.prot));
    if (carries_contents(r) && r.backing == MapBacking::file_private) map_past_end_of_file(r, g_filled[i]);
  }
  g_incoming_count = 0;
}

}  // namespace yadokari::memory
