// Bytes overwritten after a checkpoint: see overwrite_journal.hpp.
#include "checkpoint/memory/overwrite_journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/journal_io.hpp"
#include "checkpoint/memory/src/overwrite_journal_note.hpp"

namespace yadokari::memory {
namespace {

constexpr std::uint32_t kMagic = 0x574f4b59;  // "YKOW"
constexpr std::size_t kHead = 48;
constexpr std::size_t kPathMax = 4095;

// The writer's state, guarded by g_lock_flag (a JournalLock) across a record's write and sync.
std::atomic<bool> g_lock_flag{false};
std::atomic<bool> g_on{false};
std::atomic<std::uint64_t> g_serial{0};
int g_dir_fd = -1;
int g_file_fd = -1;  // the generation's file, opened at its first record
std::uint64_t g_generation;
bool g_said_failed;
char g_chunk[1 << 16];  // .bss: no allocation in the write path

void fill_head(char* head, OverwriteRecord::Kind kind, std::uint32_t path_length, std::uint64_t generation,
               std::uint64_t offset, std::uint64_t length) {
  const std::uint32_t magic = kMagic, k = kind;
  std::memset(head, 0, kHead);
  std::memcpy(head, &magic, 4);
  std::memcpy(head + 4, &k, 4);
  std::memcpy(head + 8, &path_length, 4);
  std::memcpy(head + 16, &generation, 8);
  std::memcpy(head + 24, &offset, 8);
  std::memcpy(head + 32, &length, 8);
}

// Feeds the bytes [offset, offset + length) of `fd` to `each` in chunks; false if the file ends
// before or cannot be read.
template <class Each>
bool read_range(int fd, std::uint64_t offset, std::uint64_t length, const Each& each) {
  while (length) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(length, sizeof g_chunk));
    const long got = raw_pread_full(fd, g_chunk, want, offset);
    if (got != static_cast<long>(want)) return false;
    if (!each(g_chunk, want)) return false;
    offset += want;
    length -= want;
  }
  return true;
}

std::uint64_t range_checksum(int fd, std::uint64_t offset, std::uint64_t length, bool& complete) {
  XXH64_state_t state;
  XXH64_reset(&state, 0);
  complete = read_range(fd, offset, length, [&](const char* p, std::size_t n) {
    XXH64_update(&state, p, n);
    return true;
  });
  return XXH64_digest(&state);
}

// A whole record: head, path, the payload streamed from `fd` (the bytes, or their checksum), check.
bool append_payload(int fd, const char* path, std::size_t path_length, std::uint64_t offset, std::uint64_t length) {
  const auto kind = length > kOverwriteKeepMax ? OverwriteRecord::kChecksum : OverwriteRecord::kBytes;
  char head[kHead];
  fill_head(head, kind, static_cast<std::uint32_t>(path_length), g_generation, offset, length);
  XXH64_state_t check;
  XXH64_reset(&check, 0);
  XXH64_update(&check, head, kHead);
  XXH64_update(&check, path, path_length);
  bool ok = raw_write_all(g_file_fd, head, kHead) && raw_write_all(g_file_fd, path, path_length);
  if (ok && kind == OverwriteRecord::kBytes) {
    ok = read_range(fd, offset, length, [&](const char* p, std::size_t n) {
      XXH64_update(&check, p, n);
      return raw_write_all(g_file_fd, p, n);
    });
  } else if (ok) {
    bool complete = false;
    const std::uint64_t sum = range_checksum(fd, offset, length, complete);
    XXH64_update(&check, &sum, 8);
    ok = complete && raw_write_all(g_file_fd, reinterpret_cast<const char*>(&sum), 8);
  }
  const std::uint64_t digest = XXH64_digest(&check);
  return ok && raw_write_all(g_file_fd, reinterpret_cast<const char*>(&digest), 8) && fdatasync(g_file_fd) == 0;
}

// One record appended and synced before the caller lets the application overwrite anything.
// Under the lock.
bool append_record(int fd, const char* path, std::uint64_t offset, std::uint64_t length) {
  const std::size_t path_length = std::strlen(path);
  if (path_length == 0 || path_length > kPathMax) return false;
  if (g_file_fd < 0) {
    char name[32];
    format_u64(name, g_generation);
    std::strcat(name, kOverwriteJournalSuffix);
    g_file_fd = raw_openat(g_dir_fd, name, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (g_file_fd < 0 || fsync(g_dir_fd) != 0) return false;  // the name as durable as its records
  }
  // A record that fails half-written would end the readable ones, hiding every later record: the
  // file is cut back to where it began (nothing was overwritten yet, the caller is told).
  const long start = real_syscall(SYS_lseek, g_file_fd, 0, SEEK_END);
  const bool ok = start >= 0 && append_payload(fd, path, path_length, offset, length);
  if (!ok && start >= 0) real_syscall(SYS_ftruncate, g_file_fd, start);
  return ok;
}

std::string range_text(const OverwriteRecord& r) {
  return "bytes " + std::to_string(r.offset) + "-" + std::to_string(r.offset + r.length);
}

// One record undone: its bytes written back, or its checksum verified. A file that is gone is
// left gone (as the open journal leaves it).
bool undo_record(const OverwriteRecord& r, std::string& why) {
  const bool bytes = r.kind == OverwriteRecord::kBytes;
  const int fd = raw_openat(AT_FDCWD, r.path.c_str(), bytes ? O_WRONLY : O_RDONLY);
  if (fd < 0 && errno == ENOENT) return true;
  bool ok = fd >= 0;
  if (ok && bytes) {
    ok = raw_pwrite_all(fd, r.bytes.data(), r.bytes.size(), r.offset) && fdatasync(fd) == 0;
  } else if (ok) {
    bool complete = false;
    const std::uint64_t sum = range_checksum(fd, r.offset, r.length, complete);
    if (!complete || sum != r.check) {
      raw_close(fd);
      why = r.path + " was overwritten at " + range_text(r) + " after epoch " + std::to_string(r.generation) +
            " by the run that failed, a range of more than " + std::to_string(kOverwriteKeepMax >> 20) +
            " MiB (one write, or a writable shared mapping) of which the journal keeps only a checksum: the "
            "restarted run would read other bytes than the checkpointed one did";
      return false;
    }
  }
  if (!ok)
    why = "cannot put back " + range_text(r) + " of " + r.path +
          " as they were at the checkpoint: " + std::strerror(errno);
  raw_close(fd);
  return ok;
}

}  // namespace

void start_overwrite_journal(int dir_fd, std::uint64_t generation) {
  JournalLock l(g_lock_flag);
  raw_close(g_dir_fd);
  g_dir_fd = static_cast<int>(real_syscall(SYS_fcntl, dir_fd, F_DUPFD_CLOEXEC, 0));
  if (generation != g_generation || g_file_fd < 0) {
    raw_close(g_file_fd);
    g_file_fd = -1;
    g_said_failed = false;
  }
  g_generation = generation;
  g_serial.fetch_add(1, std::memory_order_acq_rel);
  g_on.store(g_dir_fd >= 0, std::memory_order_release);
}

void stop_overwrite_journal() {
  JournalLock l(g_lock_flag);
  g_on.store(false);
  raw_close(g_file_fd);
  raw_close(g_dir_fd);
  g_file_fd = g_dir_fd = -1;
}

bool overwrite_journal_on() { return g_on.load(std::memory_order_acquire); }
std::uint64_t overwrite_generation_serial() { return g_serial.load(std::memory_order_acquire); }

bool keep_before_overwrite(int fd, const char* path, std::uint64_t offset, std::uint64_t length) {
  if (length == 0) return true;
  const int saved = errno;
  JournalLock l(g_lock_flag);
  bool ok = g_on.load(std::memory_order_relaxed) && append_record(fd, path, offset, length);
  if (!ok && g_on.load(std::memory_order_relaxed) && !g_said_failed) {
    char e[24];
    say("cannot keep the bytes about to be overwritten in ", path,
        ": a restart from the last checkpoint may keep what is written over them now; error ",
        format_u64(e, static_cast<unsigned long long>(errno)));
    g_said_failed = true;
  }
  errno = saved;
  return ok;
}

std::vector<OverwriteRecord> decode_overwrite_records(const char* data, std::size_t length) {
  std::vector<OverwriteRecord> records;
  std::size_t at = 0;
  while (length - at >= kHead) {
    const char* head = data + at;
    std::uint32_t magic = 0, kind = 0, path_length = 0;
    OverwriteRecord r{};
    std::memcpy(&magic, head, 4);
    std::memcpy(&kind, head + 4, 4);
    std::memcpy(&path_length, head + 8, 4);
    std::memcpy(&r.generation, head + 16, 8);
    std::memcpy(&r.offset, head + 24, 8);
    std::memcpy(&r.length, head + 32, 8);
    if (magic != kMagic || (kind != OverwriteRecord::kBytes && kind != OverwriteRecord::kChecksum) ||
        path_length == 0 || path_length > kPathMax || r.offset + r.length < r.offset)
      break;
    r.kind = static_cast<OverwriteRecord::Kind>(kind);
    const std::uint64_t payload = r.kind == OverwriteRecord::kBytes ? r.length : 8;
    const std::uint64_t left = length - at - kHead;
    if (r.kind == OverwriteRecord::kBytes && r.length > kOverwriteKeepMax) break;
    if (left < path_length || left - path_length < payload || left - path_length - payload < 8) break;
    const char* path = head + kHead;
    const char* body = path + path_length;
    std::uint64_t check = 0;
    std::memcpy(&check, body + payload, 8);
    if (check != XXH64(head, kHead + path_length + payload, 0)) break;
    r.path.assign(path, path_length);
    if (r.kind == OverwriteRecord::kBytes)
      r.bytes.assign(body, static_cast<std::size_t>(payload));
    else
      std::memcpy(&r.check, body, 8);
    records.push_back(std::move(r));
    at += kHead + path_length + static_cast<std::size_t>(payload) + 8;
  }
  return records;
}

bool undo_overwrites(const char* dir, std::uint64_t from, std::string& why) {
  DIR* d = opendir(dir);
  if (!d) {
    if (errno == ENOENT) return true;
    why = std::string("cannot read the overwrite journal ") + dir + ": " + std::strerror(errno);
    return false;
  }
  std::vector<std::uint64_t> generations;
  while (const dirent* e = readdir(d)) {
    std::uint64_t generation = 0;
    if (generation_file_name(e->d_name, kOverwriteJournalSuffix, generation) && generation >= from)
      generations.push_back(generation);
  }
  closedir(d);
  std::sort(generations.rbegin(), generations.rend());
  for (const std::uint64_t generation : generations) {
    const std::string path = std::string(dir) + "/" + std::to_string(generation) + kOverwriteJournalSuffix;
    std::string bytes;
    if (!read_journal_file(path, bytes)) {
      why = "cannot read the overwrite journal " + path + ": " + std::strerror(errno);
      return false;
    }
    const std::vector<OverwriteRecord> records = decode_overwrite_records(bytes.data(), bytes.size());
    for (auto r = records.rbegin(); r != records.rend(); ++r)
      if (!undo_record(*r, why)) return false;
  }
  return true;
}

}  // namespace yadokari::memory
