#include "checkpoint/memory/src/file_format.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/memory.h"
#include "checkpoint/memory/open_journal.hpp"
#include "checkpoint/memory/overwrite_journal.hpp"
#include "checkpoint/memory/written_files.hpp"
#include "checkpoint/memory/src/diag.hpp"

namespace yadokari::memory {
namespace {

constexpr char kFileMagic[8] = {'Y', 'K', 'M', 'E', 'M', 'I', 'M', 'G'};
constexpr std::uint64_t kFileVersion = 1;
constexpr std::uint64_t kAllGenerations = ~std::uint64_t{0};

bool write_all(int fd, const void* p, std::uint64_t n) {
  auto* c = static_cast<const char*>(p);
  while (n) {
    ssize_t w = write(fd, c, n > (1u << 30) ? (1u << 30) : n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<std::uint64_t>(w);
  }
  return true;
}

bool read_all(int fd, void* p, std::uint64_t n) {
  auto* c = static_cast<char*>(p);
  while (n) {
    ssize_t r = ::read(fd, c, n > (1u << 30) ? (1u << 30) : n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<std::uint64_t>(r);
  }
  return true;
}

}  // namespace

// Opens the directory part of `path` (".", "/" or the part before the last slash) and says where
// the file name starts. -1 with errno on failure.
static int open_directory_of(const char* path, const char*& name) {
  const char* slash = std::strrchr(path, '/');
  name = slash ? slash + 1 : path;
  char directory[4096];
  const std::size_t length = slash ? static_cast<std::size_t>(slash - path) : 0;
  if (length + 1 > sizeof directory) {
    errno = ENAMETOOLONG;
    return -1;
  }
  std::memcpy(directory, path, length);
  directory[length] = '\0';
  const char* opened = !slash ? "." : length == 0 ? "/" : directory;
  return open(opened, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

FileSink::FileSink(const char* path) {
  const char* name = nullptr;
  directory_fd_ = open_directory_of(path, name);
  if (directory_fd_ < 0) return;
  if (const int error = file_.create(directory_fd_, name, O_WRONLY, 0600); error != 0) {
    close(directory_fd_);
    directory_fd_ = -1;
    errno = error;
    return;
  }
  std::uint64_t version = kFileVersion;
  ok_ = write_all(file_.fd(), kFileMagic, sizeof kFileMagic) && write_all(file_.fd(), &version, sizeof version);
}

FileSink::~FileSink() {
  file_.abandon();
  if (directory_fd_ >= 0) close(directory_fd_);
}

bool FileSink::area(AreaKind kind, std::uint64_t addr, std::uint64_t len, std::uint32_t prot, const char* name,
                    const void* data) {
  FileRecord r{};
  r.kind = static_cast<std::uint32_t>(kind);
  r.prot = prot;
  r.addr = addr;
  r.len = len;
  std::snprintf(r.name, sizeof r.name, "%s", name);
  ok_ = ok_ && write_all(file_.fd(), &r, sizeof r) && write_all(file_.fd(), data, len);
  return ok_;
}

bool FileSink::commit() {
  FileRecord end{};
  ok_ = ok_ && write_all(file_.fd(), &end, sizeof end);
  if (!ok_) {
    file_.abandon();
    return false;
  }
  if (const int error = file_.commit(Durability::survives_crash); error != 0) {
    errno = error;
    return ok_ = false;
  }
  return true;
}

FileSource::FileSource(const char* path) {
  fd_ = open(path, O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return;
  char magic[8];
  std::uint64_t version = 0;
  if (!read_all(fd_, magic, sizeof magic) || std::memcmp(magic, kFileMagic, sizeof magic) != 0 ||
      !read_all(fd_, &version, sizeof version) || version != kFileVersion) {
    close(fd_);
    fd_ = -1;
  }
}

FileSource::~FileSource() { done(); }

void FileSource::done() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

bool FileSource::next(AreaHeader& h) {
  if (fd_ < 0 || failed_) return false;
  if (pending_ && lseek(fd_, static_cast<off_t>(pending_), SEEK_CUR) < 0) return !(failed_ = true);
  pending_ = 0;
  FileRecord r;
  if (!read_all(fd_, &r, sizeof r)) return !(failed_ = true);
  if (r.kind == 0) return false;
  h.kind = static_cast<AreaKind>(r.kind);
  h.addr = r.addr;
  h.len = r.len;
  h.prot = r.prot;
  pending_ = r.len;
  return true;
}

bool FileSource::read(void* dst) {
  if (fd_ < 0 || failed_ || !read_all(fd_, dst, pending_)) return !(failed_ = true);
  pending_ = 0;
  return true;
}

}  // namespace yadokari::memory

using namespace yadokari::memory;

namespace {
// The image yk_mem_restore_file restores from: in this library's own data, which the restore leaves alone.
char g_restored_image[4096];

// From now on the files this process opens and overwrites are journaled as generation 1 of the
// image's journal (one image, one generation).
void journal_from_now_on(const std::string& journal) {
  std::string why;
  if (start_open_journal(journal.c_str(), 1, why))
    keep_ahead_of_unseen_writes();
  else
    say("cannot journal the files opened from now on: ", why.c_str());
}
}  // namespace

extern "C" __attribute__((visibility("default"))) int yk_mem_checkpoint_file(const char* path) {
  FileSink sink(path);
  if (!sink.opened()) {
    say("checkpoint failed: cannot create ", path, ".tmp: ", std::strerror(errno));
    return YK_MEM_ERROR;
  }
  int r = checkpoint(sink);
  const int saved_errno = errno;  // the application's, which checkpoint() put back
  // The open journal of the image (open_journal.hpp): one generation, since the file holds one
  // image. Returning a second time, `path` is the old process's pointer, which may point at
  // something else now: the image is the one this process was restored from.
  const std::string journal = std::string(r == YK_MEM_RESTARTED ? g_restored_image : path) + ".open-journal";
  std::string why;
  if (r == YK_MEM_RESTARTED) {
    sink.forget();
    // One process, nobody to agree with: the files are cut back here (the shim does it for all
    // ranks together, written_files.hpp), those open at the checkpoint to their size then, the
    // others journaled since to their size at the first open.
    // Bytes overwritten inside the files first (overwrite_journal.hpp), then the cuts.
    if (!undo_overwrites(journal.c_str(), 0, why)) fatal(why.c_str());
    const std::vector<WrittenFile> files = files_written_at_checkpoint();
    for (const WrittenFile& f : files)
      if (!cut_back(f.path, f.size, why)) fatal(why.c_str());
    std::vector<JournalRecord> journaled;
    if (!read_open_journal(journal.c_str(), 0, journaled, why)) fatal(why.c_str());
    for (const JournalRecord& j : journaled) {
      bool open_at_checkpoint = false;
      for (const WrittenFile& f : files) open_at_checkpoint = open_at_checkpoint || j.path == f.path;
      if (!open_at_checkpoint && !cut_back_if_present(j.path.c_str(), j.size, why)) fatal(why.c_str());
    }
    remove_open_journal(journal.c_str(), 0, kAllGenerations);
    journal_from_now_on(journal);
    errno = saved_errno;
    return r;
  }
  if (r == YK_MEM_CHECKPOINTED) {
    // The new image replaces the old one: the old one's records go first (left over, they would
    // cut files below this image's sizes); until the commit a crash leaves the old image without
    // them, which can only keep bytes, never lose any.
    stop_open_journal();
    remove_open_journal(journal.c_str(), 0, kAllGenerations);
    if (!sink.commit()) {
      say("checkpoint failed: cannot write ", path, ": ", std::strerror(errno));
      return YK_MEM_ERROR;
    }
    journal_from_now_on(journal);
  }
  errno = saved_errno;
  return r;
}

extern "C" __attribute__((visibility("default"))) int yk_mem_restore_file(const char* path) {
  std::snprintf(g_restored_image, sizeof g_restored_image, "%s", path);
  FileSource src(path);
  if (!src.opened()) {
    say("cannot restore ", path, ": not readable or not a yadokari memory image");
    return YK_MEM_ERROR;
  }
  return restore(src, path);
}
