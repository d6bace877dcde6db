// Files written after the checkpoint: see written_files.hpp.
#include "checkpoint/memory/written_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "checkpoint/memory/src/deferred_truncation.hpp"
#include "checkpoint/memory/src/written_files_note.hpp"

namespace yadokari::memory {
namespace {

// Filled by the restore (single-threaded, before the application runs again), read afterwards.
WrittenFile g_files[kMaxWrittenFiles];
int g_count;

}  // namespace

void forget_written_files() { g_count = 0; }

void note_written_file(const char* path, std::int64_t size) {
  if (size < 0) return;
  for (int i = 0; i < g_count; ++i) {
    if (std::strcmp(g_files[i].path, path) != 0) continue;
    if (static_cast<std::uint64_t>(size) > g_files[i].size) g_files[i].size = static_cast<std::uint64_t>(size);
    return;
  }
  if (g_count < kMaxWrittenFiles) g_files[g_count++] = WrittenFile{path, static_cast<std::uint64_t>(size)};
}

std::vector<WrittenFile> files_written_at_checkpoint() { return {g_files, g_files + g_count}; }

bool cut_back(const char* path, std::uint64_t size, std::string& why) {
  struct stat st {};
  if (stat(path, &st) != 0) {
    why = std::string("cannot look at ") + path + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) <= size) return true;
  // Ranks may cut one file to different sizes at the same moment (a journaled file: each to what
  // it saw, open_journal.hpp). Between one rank's look at the size and its truncate another may
  // have cut the file shorter, and truncate would then lengthen it again with zeros: so the look
  // and the cut are made under an exclusive lock on the file. A file system without flock (EINVAL,
  // ENOLCK, EOPNOTSUPP) is cut without it.
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  bool ok = fd >= 0;
  if (ok) {
    const bool locked = flock(fd, LOCK_EX) == 0;
    ok = fstat(fd, &st) == 0 &&
         (static_cast<std::uint64_t>(st.st_size) <= size || real_ftruncate(fd, static_cast<off_t>(size)) == 0);
    const int saved = errno;
    if (locked) flock(fd, LOCK_UN);
    close(fd);
    errno = saved;
  }
  if (!ok) {
    why = std::string("cannot cut ") + path + " back to its size at the checkpoint (" + std::to_string(size) +
          " bytes): " + std::strerror(errno);
    return false;
  }
  return true;
}

bool cut_back_if_present(const char* path, std::uint64_t size, std::string& why) {
  struct stat st {};
  if (stat(path, &st) != 0 && errno == ENOENT) return true;
  return cut_back(path, size, why);
}

}  // namespace yadokari::memory
