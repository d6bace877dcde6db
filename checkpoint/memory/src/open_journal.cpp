// Files opened for writing after a checkpoint: see open_journal.hpp.
#include "checkpoint/memory/open_journal.hpp"
#include "checkpoint/memory/overwrite_journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/journal_io.hpp"
#include "checkpoint/memory/src/open_journal_note.hpp"
#include "checkpoint/memory/src/overwrite_journal_note.hpp"
#include "checkpoint/memory/src/raw_syscalls.hpp"

namespace yadokari::memory {
namespace {

constexpr std::uint32_t kMagic = 0x4a4f4b59;  // "YKOJ"

// The process's journal. The open path runs in application context, maybe in several threads:
// everything below is guarded by g_lock_flag (a JournalLock), held across the write and the sync.
std::atomic<bool> g_lock_flag{false};
std::atomic<bool> g_on{false};
char g_dir[4096];
int g_dir_fd = -1;
int g_file_fd = -1;  // the current generation's file, opened at its first record
std::uint64_t g_generation;
std::uint64_t g_seen[kJournalPaths];  // XXH64 of the paths journaled in this generation, 0: free
int g_seen_count;
bool g_said_full, g_said_failed;
char g_path[kJournalPathMax + 1];
char g_record[kJournalHead + kJournalPathMax];

std::uint64_t check_of(const char* head, const char* path, std::size_t length) {
  return XXH64(path, length, XXH64(head, kJournalHead - 8, 0));
}

std::uint64_t path_key(const char* path) {
  const std::uint64_t key = XXH64(path, std::strlen(path), 0);
  return key ? key : 1;  // 0 marks a free slot
}

// Open addressing over g_seen. True when `key` was there; otherwise inserts it if there is room.
bool seen_or_insert(std::uint64_t key) {
  std::size_t at = key % kJournalPaths;
  for (int probe = 0; probe < kJournalPaths; ++probe, at = (at + 1) % kJournalPaths) {
    if (g_seen[at] == key) return true;
    if (g_seen[at] != 0) continue;
    if (g_seen_count >= kJournalPaths * 3 / 4) break;  // keep probes short: "full" at three quarters
    g_seen[at] = key;
    ++g_seen_count;
    return false;
  }
  if (!g_said_full) {
    char n[24];
    say("more than ", format_u64(n, kJournalPaths * 3 / 4),
        " files were opened for writing since the last checkpoint: each further one is journaled at every open");
  }
  g_said_full = true;
  return false;
}

// mkdir -p, each directory it makes synced into its parent.
bool make_directories(const char* dir, std::string& why) {
  std::string path(dir);
  for (std::size_t at = 1; at <= path.size(); ++at) {
    if (at != path.size() && path[at] != '/') continue;
    const std::string part = path.substr(0, at);
    if (mkdir(part.c_str(), 0755) == 0) {
      const std::size_t slash = part.find_last_of('/');
      const std::string parent = slash == 0 ? "/" : part.substr(0, slash);
      const int fd = raw_openat(AT_FDCWD, parent.c_str(), O_RDONLY | O_DIRECTORY, 0);
      if (fd >= 0) {
        fsync(fd);
        raw_close(fd);
      }
    } else if (errno != EEXIST) {
      why = "cannot create " + part + ": " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

}  // namespace

std::size_t encode_journal_record(std::uint64_t generation, std::uint64_t size, const char* path, char* out,
                                  std::size_t capacity) {
  const std::size_t length = std::strlen(path);
  if (length == 0 || length > kJournalPathMax || capacity < kJournalHead + length) return 0;
  const std::uint32_t magic = kMagic, path_length = static_cast<std::uint32_t>(length);
  std::memcpy(out, &magic, 4);
  std::memcpy(out + 4, &path_length, 4);
  std::memcpy(out + 8, &generation, 8);
  std::memcpy(out + 16, &size, 8);
  std::memcpy(out + kJournalHead, path, length);
  const std::uint64_t check = check_of(out, out + kJournalHead, length);
  std::memcpy(out + 24, &check, 8);
  return kJournalHead + length;
}

std::vector<JournalRecord> decode_journal_records(const char* data, std::size_t length) {
  std::vector<JournalRecord> records;
  std::size_t at = 0;
  while (length - at >= kJournalHead) {
    const char* head = data + at;
    std::uint32_t magic = 0, path_length = 0;
    JournalRecord r{};
    std::uint64_t check = 0;
    std::memcpy(&magic, head, 4);
    std::memcpy(&path_length, head + 4, 4);
    std::memcpy(&r.generation, head + 8, 8);
    std::memcpy(&r.size, head + 16, 8);
    std::memcpy(&check, head + 24, 8);
    if (magic != kMagic || path_length == 0 || path_length > kJournalPathMax ||
        length - at - kJournalHead < path_length || check != check_of(head, head + kJournalHead, path_length))
      break;
    r.path.assign(head + kJournalHead, path_length);
    records.push_back(std::move(r));
    at += kJournalHead + path_length;
  }
  return records;
}

bool start_open_journal(const char* dir, std::uint64_t generation, std::string& why) {
  if (!make_directories(dir, why)) return false;
  JournalLock l(g_lock_flag);
  if (g_dir_fd < 0 || std::strcmp(dir, g_dir) != 0) {
    raw_close(g_dir_fd);
    raw_close(g_file_fd);
    g_file_fd = -1;
    g_generation = 0;
    std::snprintf(g_dir, sizeof g_dir, "%s", dir);
    g_dir_fd = raw_openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0);
    if (g_dir_fd < 0) {
      why = std::string("cannot open ") + dir + ": " + std::strerror(errno);
      g_on.store(false);
      return false;
    }
  }
  if (generation != g_generation || g_file_fd < 0) {
    raw_close(g_file_fd);
    g_file_fd = -1;
    std::memset(g_seen, 0, sizeof g_seen);
    g_seen_count = 0;
    g_said_full = g_said_failed = false;
  }
  g_generation = generation;
  g_on.store(true, std::memory_order_release);
  start_overwrite_journal(g_dir_fd, generation);
  return true;
}

void stop_open_journal() {
  stop_overwrite_journal();
  JournalLock l(g_lock_flag);
  g_on.store(false);
  raw_close(g_file_fd);
  raw_close(g_dir_fd);
  g_file_fd = g_dir_fd = -1;
}

void journal_open(int fd, int flags) {
  if (fd < 0 || !g_on.load(std::memory_order_acquire)) return;
  if ((flags & O_ACCMODE) == O_RDONLY || (flags & O_TRUNC)) return;
  const int saved = errno;
  struct stat st {};
  char link[40];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  JournalLock l(g_lock_flag);
  const ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? readlink(link, g_path, kJournalPathMax) : -1;
  if (n > 0 && g_path[0] == '/' && g_on.load(std::memory_order_relaxed)) {
    g_path[n] = '\0';
    if (!seen_or_insert(path_key(g_path))) {
      char name[24];
      bool ok = true;
      if (g_file_fd < 0) {
        g_file_fd = raw_openat(g_dir_fd, format_u64(name, g_generation), O_WRONLY | O_APPEND | O_CREAT, 0644);
        ok = g_file_fd >= 0 && fsync(g_dir_fd) == 0;  // the file's name is as durable as its records
      }
      const std::size_t length = encode_journal_record(g_generation, static_cast<std::uint64_t>(st.st_size), g_path,
                                                       g_record, sizeof g_record);
      ok = ok && length && raw_write_all(g_file_fd, g_record, length) && fdatasync(g_file_fd) == 0;
      if (!ok && !g_said_failed) {
        char e[24];
        say("cannot journal the open of ", g_path,
            ": a restart from the last checkpoint may keep what is written to it "
            "now; error ",
            format_u64(e, static_cast<unsigned long long>(errno)));
      }
      g_said_failed = g_said_failed || !ok;
    }
  }
  errno = saved;
}

bool read_open_journal(const char* dir, std::uint64_t from, std::vector<JournalRecord>& out, std::string& why) {
  out.clear();
  DIR* d = opendir(dir);
  if (!d) {
    if (errno == ENOENT) return true;
    why = std::string("cannot read the open journal ") + dir + ": " + std::strerror(errno);
    return false;
  }
  std::map<std::string, JournalRecord> smallest;
  bool ok = true;
  while (const dirent* e = readdir(d)) {
    std::uint64_t generation = 0;
    if (!generation_file_name(e->d_name, "", generation) || generation < from) continue;
    const std::string path = std::string(dir) + "/" + e->d_name;
    std::string bytes;
    if (!read_journal_file(path, bytes)) {
      why = "cannot read the open journal " + path + ": " + std::strerror(errno);
      ok = false;
      break;
    }
    for (JournalRecord& r : decode_journal_records(bytes.data(), bytes.size())) {
      if (r.generation < from) continue;
      auto [it, fresh] = smallest.try_emplace(r.path, r);
      if (!fresh) it->second.size = std::min(it->second.size, r.size);
    }
  }
  closedir(d);
  if (!ok) return false;
  for (auto& [path, r] : smallest) out.push_back(std::move(r));
  return true;
}

void remove_open_journal(const char* dir, std::uint64_t from, std::uint64_t to) {
  DIR* d = opendir(dir);
  if (!d) return;
  const int dir_fd = dirfd(d);
  while (const dirent* e = readdir(d)) {
    std::uint64_t generation = 0;
    // The overwrite journal's records of a generation (overwrite_journal.hpp) go with it.
    const bool journal_file = generation_file_name(e->d_name, "", generation) ||
                              generation_file_name(e->d_name, kOverwriteJournalSuffix, generation);
    if (journal_file && generation >= from && generation < to) unlinkat(dir_fd, e->d_name, 0);
  }
  closedir(d);
}

}  // namespace yadokari::memory
