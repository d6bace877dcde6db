// Files written after the checkpoint: see written_files.hpp.
#include "checkpoint/memory/written_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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
  if (truncate(path, static_cast<off_t>(size)) != 0) {
    why = std::string("cannot cut ") + path + " back to its size at the checkpoint (" + std::to_string(size) +
          " bytes): " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace yadokari::memory
