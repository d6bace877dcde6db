// The identity of the application's input files: see input_identity.hpp.
#include "checkpoint/memory/src/input_identity.hpp"

#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "checkpoint/memory/src/raw_syscalls.hpp"
#include "checkpoint/memory/src/spin_lock.hpp"

namespace yadokari::memory {
namespace {

constexpr std::int64_t kWholeUpTo = std::int64_t{64} << 20;
constexpr std::int64_t kBlock = 64 << 10;
constexpr int kSamples = 16;

struct Cached {
  std::uint64_t dev, ino;
  std::int64_t size, mtime_ns;
  std::uint64_t digest;
};
constexpr int kCache = 64;
Cached g_cache[kCache];
int g_next;  // round robin
SpinLock g_lock;
unsigned char g_buffer[1 << 20];  // .bss; the capture and the restore run on one thread

std::int64_t mtime_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

bool read_at(int fd, std::int64_t offset, std::int64_t len, XXH3_state_t& state) {
  while (len > 0) {
    const long chunk = static_cast<long>(len < static_cast<std::int64_t>(sizeof g_buffer) ? len : sizeof g_buffer);
    const long n = real_syscall(SYS_pread64, fd, reinterpret_cast<long>(g_buffer), chunk, static_cast<long>(offset));
    if (n <= 0) return false;
    XXH3_64bits_update(&state, g_buffer, static_cast<std::size_t>(n));
    offset += n;
    len -= n;
  }
  return true;
}

bool digest_of(int fd, std::int64_t size, std::uint32_t kind, std::uint64_t& out) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, &size, sizeof size);
  if (kind == kDigestWhole) {
    if (!read_at(fd, 0, size, state)) return false;
  } else {
    for (int i = 0; i < kSamples; ++i)
      if (!read_at(fd, (size - kBlock) / (kSamples - 1) * i, kBlock, state)) return false;
  }
  out = XXH3_64bits_digest(&state);
  return true;
}

std::uint32_t kind_for(std::int64_t size) { return size <= kWholeUpTo ? kDigestWhole : kDigestSampled; }

// Files of the kernel's pseudo file systems are live data (a sensor, a process's status), not
// inputs: they differ at every read and are not checked.
bool live_data(int fd) {
  struct statfs fs {};
  if (fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool identify_input(int fd, const struct stat& st, InputIdentity& out) {
  out = {static_cast<std::uint64_t>(st.st_ino), mtime_ns(st), static_cast<std::int64_t>(st.st_size), 0,
         kind_for(st.st_size)};
  if (live_data(fd)) return out.digest_kind = kDigestNone, true;
  {
    SpinGuard l(g_lock);
    for (const Cached& c : g_cache)
      if (c.ino == out.ino && c.dev == st.st_dev && c.size == out.size && c.mtime_ns == out.mtime_ns && c.digest)
        return out.digest = c.digest, true;
  }
  if (!digest_of(fd, out.size, out.digest_kind, out.digest)) return false;
  SpinGuard l(g_lock);
  g_cache[g_next] = {static_cast<std::uint64_t>(st.st_dev), out.ino, out.size, out.mtime_ns, out.digest};
  g_next = (g_next + 1) % kCache;
  return true;
}

bool same_input(int fd, const struct stat& st, const InputIdentity& was) {
  if (was.digest_kind == kDigestNone) return true;
  if (static_cast<std::uint64_t>(st.st_ino) == was.ino && mtime_ns(st) == was.mtime_ns && st.st_size == was.size)
    return true;
  std::uint64_t now = 0;
  // Grown since: what it held at the checkpoint must be its beginning (another rank of the job may
  // have appended to it, which that rank's restore cuts off again only later).
  return st.st_size >= was.size && digest_of(fd, was.size, was.digest_kind, now) && now == was.digest;
}

}  // namespace yadokari::memory
