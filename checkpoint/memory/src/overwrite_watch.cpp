// The calls that can overwrite what an application file held at the checkpoint, interposed to keep
// the bytes first (overwrite_journal.hpp). write/pwrite/writev/pwritev, fallocate's holes and
// zeroed ranges, copy_file_range/sendfile/splice into a file say where they write (ftruncate and
// truncate(2), in deferred_truncation.cpp, what they cut off); glibc's stdio writes through its internal write, which nothing can interpose, so a
// stream is watched where it is positioned instead: an fseek/fsetpos/rewind, an "r+" fopen, a
// writing fdopen, and (keep_ahead_of_unseen_writes) its position when a generation starts. From such a position
// on everything up to the end the file had is kept at once: the stream may write any of it next.
// Libraries' writes (MPI's sockets and files, the layer's own) are not watched: only descriptors
// of the fd table (the application's files, moved above 900) on application threads.
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>

#include "checkpoint/memory/overwrite_journal.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/fd_table.hpp"
#include "checkpoint/memory/src/journal_io.hpp"
#include "checkpoint/memory/src/overwrite_journal_note.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

constexpr std::uint64_t kToTheEnd = std::numeric_limits<std::uint64_t>::max();
constexpr int kNoWrites = 0x0008;  // glibc libio's _IO_NO_WRITES: a stream opened for reading only

// What the watch knows of one descriptor in the current generation: whether it is watched at all,
// the file's size when it was first seen (the bytes that may need keeping lie below it), and the
// ranges already kept (their bytes as they were at the generation's start).
struct Range {
  std::uint64_t from, to;
};
constexpr int kRanges = 32;
struct Watch {
  int fd = -1;
  std::uint64_t serial = 0;
  bool watched = false;
  std::uint64_t end = 0;
  int ranges = 0;
  Range kept[kRanges];
};
constexpr int kWatches = 256;
Watch g_watches[kWatches];
std::atomic<bool> g_lock_flag{false};  // g_watches and the buffers below
char g_path[kFdPathMax];

struct Real {
  ssize_t (*write)(int, const void*, size_t);
  ssize_t (*pwrite)(int, const void*, size_t, off_t);
  ssize_t (*writev)(int, const struct iovec*, int);
  ssize_t (*pwritev)(int, const struct iovec*, int, off_t);
  ssize_t (*pwritev2)(int, const struct iovec*, int, off_t, int);
  int (*fallocate)(int, int, off_t, off_t);
  ssize_t (*copy_file_range)(int, off_t*, int, off_t*, size_t, unsigned);
  ssize_t (*sendfile)(int, int, off_t*, size_t);
  ssize_t (*splice)(int, loff_t*, int, loff_t*, size_t, unsigned);
  int (*fseek)(FILE*, long, int);
  int (*fseeko)(FILE*, off_t, int);
  int (*fsetpos)(FILE*, const fpos_t*);
  void (*rewind)(FILE*);
} g_real;

// Resolved at load time and, since MPI libraries' constructors may write before ours run, on first
// use too (docs/architecture.md, pitfall 8).
const Real& real() {
  if (!g_real.rewind) {
    auto next = [](const char* name) { return dlsym(RTLD_NEXT, name); };
    Real r{};
    r.write = reinterpret_cast<decltype(r.write)>(next("write"));
    r.pwrite = reinterpret_cast<decltype(r.pwrite)>(next("pwrite"));
    r.writev = reinterpret_cast<decltype(r.writev)>(next("writev"));
    r.pwritev = reinterpret_cast<decltype(r.pwritev)>(next("pwritev"));
    r.pwritev2 = reinterpret_cast<decltype(r.pwritev2)>(next("pwritev2"));
    r.fallocate = reinterpret_cast<decltype(r.fallocate)>(next("fallocate"));
    r.copy_file_range = reinterpret_cast<decltype(r.copy_file_range)>(next("copy_file_range"));
    r.sendfile = reinterpret_cast<decltype(r.sendfile)>(next("sendfile"));
    r.splice = reinterpret_cast<decltype(r.splice)>(next("splice"));
    r.fseek = reinterpret_cast<decltype(r.fseek)>(next("fseek"));
    r.fseeko = reinterpret_cast<decltype(r.fseeko)>(next("fseeko"));
    r.fsetpos = reinterpret_cast<decltype(r.fsetpos)>(next("fsetpos"));
    r.rewind = reinterpret_cast<decltype(r.rewind)>(next("rewind"));
    if (!r.write || !r.pwrite || !r.writev || !r.pwritev || !r.pwritev2 || !r.fallocate || !r.copy_file_range ||
        !r.sendfile || !r.splice || !r.fseek || !r.fseeko || !r.fsetpos || !r.rewind)
      fatal(
          "cannot resolve libc's write/pwrite/writev/pwritev/fallocate/copy_file_range/sendfile/splice/fseek/"
          "fsetpos/rewind");
    g_real = r;
  }
  return g_real;
}

__attribute__((constructor(101))) void resolve_at_load() { real(); }

// The fast test every write pays: an application file, an application thread, a journal running.
inline bool watching(int fd) { return fd >= kFdBase && t_app && overwrite_journal_on(); }

// What the write path may read without the lock, per descriptor number above 900: the generation
// it was judged in, the end its file had then (kUnwatched: not an application file), and one range
// already kept. Written under the lock. The serial is stored last when a descriptor is judged; the
// range only ever grows while it is published (a new one replaces it only if it holds it), so its
// two ends read at different moments still name bytes that are kept. Empty: from > to.
constexpr std::uint64_t kUnwatched = std::numeric_limits<std::uint64_t>::max();
struct Quick {
  std::atomic<std::uint64_t> serial{0};
  std::atomic<std::uint64_t> end{0};
  std::atomic<std::uint64_t> kept_from{kUnwatched}, kept_to{0};
};
constexpr int kQuick = 4096;
Quick g_quick[kQuick];

Quick* quick_of(int fd) { return fd - kFdBase < kQuick ? &g_quick[fd - kFdBase] : nullptr; }

void publish_judgement(Quick& q, const Watch& w) {
  if (q.serial.load(std::memory_order_relaxed) == w.serial) return;
  q.end.store(w.watched ? w.end : kUnwatched, std::memory_order_relaxed);
  q.kept_from.store(kUnwatched, std::memory_order_relaxed);
  q.kept_to.store(0, std::memory_order_relaxed);
  q.serial.store(w.serial, std::memory_order_release);
}

void publish_kept(Quick& q, const Range& r) {
  const std::uint64_t from = q.kept_from.load(std::memory_order_relaxed),
                      to = q.kept_to.load(std::memory_order_relaxed);
  if (from <= to && !(r.from <= from && to <= r.to)) return;
  q.kept_from.store(r.from, std::memory_order_release);
  q.kept_to.store(r.to, std::memory_order_release);
}

Watch* watch_of(int fd, std::uint64_t serial, Watch& spare) {
  Watch* free_slot = nullptr;
  for (Watch& w : g_watches) {
    if (w.fd == fd && w.serial == serial) return &w;
    if (!free_slot && (w.fd < 0 || w.serial != serial)) free_slot = &w;
  }
  Watch* w = free_slot ? free_slot : &spare;  // table full: judged afresh at every write
  *w = Watch{};
  w->fd = fd;
  w->serial = serial;
  struct stat st {};
  const long status = real_syscall(SYS_fcntl, fd, F_GETFL);
  w->watched = is_app_file(fd) && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && status >= 0 &&
               (status & O_ACCMODE) != O_RDONLY && !(status & O_APPEND);
  w->end = static_cast<std::uint64_t>(st.st_size);
  return w;
}

bool covered(const Watch& w, std::uint64_t at, std::uint64_t& next_kept) {
  next_kept = kToTheEnd;
  for (int i = 0; i < w.ranges; ++i) {
    if (w.kept[i].from <= at && at < w.kept[i].to) {
      next_kept = w.kept[i].to;
      return true;
    }
    if (w.kept[i].from > at) next_kept = std::min(next_kept, w.kept[i].from);
  }
  return false;
}

// Adds [from, to) to the kept ranges, merged with those it touches. A full table forgets nothing
// it holds: the new range is then just not remembered, and kept again next time (never lost).
void remember(Watch& w, std::uint64_t from, std::uint64_t to) {
  int out = 0;
  for (int i = 0; i < w.ranges; ++i) {
    const Range r = w.kept[i];
    if (r.to < from || r.from > to) {
      w.kept[out++] = r;
      continue;
    }
    from = std::min(from, r.from);
    to = std::max(to, r.to);
  }
  w.ranges = out;
  if (w.ranges < kRanges) w.kept[w.ranges++] = Range{from, to};
}

// The kept range that holds `at` (covered() said there is one).
Range range_holding(const Watch& w, std::uint64_t at) {
  for (int i = 0; i < w.ranges; ++i)
    if (w.kept[i].from <= at && at < w.kept[i].to) return w.kept[i];
  return Range{kUnwatched, 0};
}

// Keeps what is not kept yet of [from, to) of the file on `fd`.
bool keep_gaps(Watch& w, int fd, std::uint64_t from, std::uint64_t to) {
  char link[40];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  if (!fd_path(fd, g_path)) return false;
  // The application's descriptor may be write-only: the bytes are read through a reader of its own.
  const int reader = raw_openat(AT_FDCWD, link, O_RDONLY);
  struct stat st {};
  if (reader < 0 || fstat(reader, &st) != 0) {
    raw_close(reader);
    return false;
  }
  to = std::min(to, static_cast<std::uint64_t>(st.st_size));  // bytes cut off since hold nothing to keep
  bool ok = true;
  for (std::uint64_t at = from; ok && at < to;) {
    std::uint64_t next = 0;
    if (covered(w, at, next)) {
      at = next;
      continue;
    }
    const std::uint64_t gap_end = std::min(to, next);
    ok = keep_before_overwrite(reader, g_path, at, gap_end - at);
    at = gap_end;
  }
  raw_close(reader);
  return ok;
}

}  // namespace

void before_write_at(int fd, std::int64_t offset, std::uint64_t length) {
  if (!watching(fd)) return;
  const int saved = errno;
  const std::uint64_t serial = overwrite_generation_serial();
  std::int64_t from = offset;
  // Nearly every write is to a descriptor already judged in this generation, at or past the end
  // its file had (a log, an output file written in order) or into bytes already kept (a record
  // updated again): answered without the lock.
  Quick* q = quick_of(fd);
  if (q && q->serial.load(std::memory_order_acquire) == serial) {
    const std::uint64_t end = q->end.load(std::memory_order_relaxed);
    if (end != kUnwatched && end != 0 && from < 0) from = real_syscall(SYS_lseek, fd, 0, SEEK_CUR);
    const std::uint64_t at = static_cast<std::uint64_t>(from);
    const std::uint64_t kept_from = q->kept_from.load(std::memory_order_acquire);
    const std::uint64_t kept_to = q->kept_to.load(std::memory_order_acquire);
    if (end == kUnwatched || end == 0 || from < 0 || at >= end ||
        (at >= kept_from && at <= kept_to && std::min(length, end - at) <= kept_to - at)) {
      errno = saved;
      return;
    }
  }
  {
    JournalLock l(g_lock_flag);
    Watch spare;
    Watch& w = *watch_of(fd, serial, spare);
    if (q) publish_judgement(*q, w);
    if (from < 0) from = real_syscall(SYS_lseek, fd, 0, SEEK_CUR);
    if (w.watched && from >= 0 && static_cast<std::uint64_t>(from) < w.end) {
      const std::uint64_t start = static_cast<std::uint64_t>(from);
      const std::uint64_t to = length >= w.end - start ? w.end : start + length;
      std::uint64_t kept_to = 0;  // kept ranges are merged: one holding `start` up to `to` holds it all
      bool kept = covered(w, start, kept_to) && kept_to >= to;
      if (!kept && keep_gaps(w, fd, start, to)) {
        remember(w, start, to);
        kept = true;
      }
      if (q && kept) publish_kept(*q, range_holding(w, start));  // empty if the table could not hold it
    }
  }
  errno = saved;
}

void before_truncate_path(const char* path, std::uint64_t length) {
  if (!t_app || !overwrite_journal_on()) return;
  const int saved = errno;
  const int reader = raw_openat(AT_FDCWD, path, O_RDONLY);
  struct stat st {};
  if (reader >= 0 && fstat(reader, &st) == 0 && S_ISREG(st.st_mode) &&
      length < static_cast<std::uint64_t>(st.st_size)) {
    JournalLock l(g_lock_flag);
    if (fd_path(reader, g_path))
      keep_before_overwrite(reader, g_path, length, static_cast<std::uint64_t>(st.st_size) - length);
  }
  raw_close(reader);
  errno = saved;
}

void forget_watched_fd(int fd) {
  if (fd < kFdBase || !overwrite_journal_on()) return;
  JournalLock l(g_lock_flag);
  for (Watch& w : g_watches)
    if (w.fd == fd) w.fd = -1;
  if (Quick* q = quick_of(fd)) q->serial.store(0, std::memory_order_release);
}

namespace {

// A stream that may write at its position next (it was just positioned or opened there).
void before_stream_writes(FILE* f) {
  if (!f || !watching(f->_fileno) || (f->_flags & kNoWrites)) return;
  const off_t at = ftello(f);
  if (at >= 0) before_write_at(f->_fileno, at, kToTheEnd);
}

std::uint64_t total(const struct iovec* iov, int count) {
  std::uint64_t n = 0;
  for (int i = 0; i < count; ++i) n += iov[i].iov_len;
  return n;
}

}  // namespace

void note_stream_opened(FILE* f, const char* mode) {
  if (mode && mode[0] == 'r' && std::strchr(mode, '+')) before_stream_writes(f);
}

void note_stream_made_on_fd(FILE* f, const char* mode) {
  // fdopen never truncates, so "w" writes where the descriptor stands as "r+" does.
  if (mode && (mode[0] == 'w' || (mode[0] == 'r' && std::strchr(mode, '+')))) before_stream_writes(f);
}

void keep_ahead_of_unseen_writes() {
  keep_under_writable_shared_mappings();  // mapping_overwrites.cpp
  FILE* streams[kMaxAppFds];
  const int n = app_streams(streams, kMaxAppFds);
  // The kernel's offset, not ftello (no stream lock taken here): after the checkpoint's flush it
  // is where a writing stream writes next; a stream that read ahead must be positioned before it
  // may write (ISO C), which is watched.
  for (int i = 0; i < n; ++i) {
    FILE* f = streams[i];
    if (!watching(f->_fileno) || (f->_flags & kNoWrites)) continue;
    before_write_at(f->_fileno, -1, kToTheEnd);
  }
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

// ---- the interposed functions --------------------------------------------------------------

YK_C_API ssize_t write(int fd, const void* buf, size_t n) {
  if (watching(fd)) before_write_at(fd, -1, n);
  return real().write(fd, buf, n);
}

YK_C_API ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  if (watching(fd)) before_write_at(fd, offset, n);
  return real().pwrite(fd, buf, n, offset);
}

YK_C_API ssize_t pwrite64(int fd, const void* buf, size_t n, off_t offset) { return pwrite(fd, buf, n, offset); }

YK_C_API ssize_t writev(int fd, const struct iovec* iov, int count) {
  if (watching(fd)) before_write_at(fd, -1, total(iov, count));
  return real().writev(fd, iov, count);
}

YK_C_API ssize_t pwritev(int fd, const struct iovec* iov, int count, off_t offset) {
  if (watching(fd)) before_write_at(fd, offset, total(iov, count));
  return real().pwritev(fd, iov, count, offset);
}

YK_C_API ssize_t pwritev64(int fd, const struct iovec* iov, int count, off_t offset) {
  return pwritev(fd, iov, count, offset);
}

// Offset -1: the current one. RWF_APPEND writes at the end, over nothing.
YK_C_API ssize_t pwritev2(int fd, const struct iovec* iov, int count, off_t offset, int flags) {
  if (watching(fd) && !(flags & RWF_APPEND)) before_write_at(fd, offset < 0 ? -1 : offset, total(iov, count));
  return real().pwritev2(fd, iov, count, offset, flags);
}

YK_C_API ssize_t pwritev64v2(int fd, const struct iovec* iov, int count, off_t offset, int flags) {
  return pwritev2(fd, iov, count, offset, flags);
}

// Holes punched, ranges zeroed, collapsed or shifted change bytes the file held; plain allocation
// does not.
YK_C_API int fallocate(int fd, int mode, off_t offset, off_t length) {
  if (watching(fd) && offset >= 0 && length > 0) {
    if (mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE))
      before_write_at(fd, offset, kToTheEnd);
    else if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
      before_write_at(fd, offset, static_cast<std::uint64_t>(length));
  }
  return real().fallocate(fd, mode, offset, length);
}

YK_C_API int fallocate64(int fd, int mode, off_t offset, off_t length) { return fallocate(fd, mode, offset, length); }

// Copies into a file write there as write(2) would.
YK_C_API ssize_t copy_file_range(int fd_in, off_t* off_in, int fd_out, off_t* off_out, size_t length, unsigned flags) {
  if (watching(fd_out)) before_write_at(fd_out, off_out ? *off_out : -1, length);
  return real().copy_file_range(fd_in, off_in, fd_out, off_out, length, flags);
}

YK_C_API ssize_t sendfile(int out_fd, int in_fd, off_t* offset, size_t count) {
  if (watching(out_fd)) before_write_at(out_fd, -1, count);
  return real().sendfile(out_fd, in_fd, offset, count);
}

YK_C_API ssize_t sendfile64(int out_fd, int in_fd, off_t* offset, size_t count) {
  return sendfile(out_fd, in_fd, offset, count);
}

YK_C_API ssize_t splice(int fd_in, loff_t* off_in, int fd_out, loff_t* off_out, size_t length, unsigned flags) {
  if (watching(fd_out)) before_write_at(fd_out, off_out ? *off_out : -1, length);
  return real().splice(fd_in, off_in, fd_out, off_out, length, flags);
}

YK_C_API int fseek(FILE* f, long offset, int whence) {
  const int r = real().fseek(f, offset, whence);
  if (r == 0) before_stream_writes(f);
  return r;
}

YK_C_API int fseeko(FILE* f, off_t offset, int whence) {
  const int r = real().fseeko(f, offset, whence);
  if (r == 0) before_stream_writes(f);
  return r;
}

YK_C_API int fseeko64(FILE* f, off_t offset, int whence) { return fseeko(f, offset, whence); }

YK_C_API int fsetpos(FILE* f, const fpos_t* position) {
  const int r = real().fsetpos(f, position);
  if (r == 0) before_stream_writes(f);
  return r;
}

YK_C_API int fsetpos64(FILE* f, const fpos64_t* position) {
  return fsetpos(f, reinterpret_cast<const fpos_t*>(position));
}

YK_C_API void rewind(FILE* f) {
  real().rewind(f);
  before_stream_writes(f);
}
