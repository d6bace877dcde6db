#pragma once
// The application's regular files across a restart (docs/architecture.md §5, pitfall 9). A file the
// application opens (open/openat/creat/fopen/freopen/dup... in application context) is moved to
// a reserved high descriptor range and recorded here; the capture saves, per descriptor, the
// path, the status flags and the offset (the fds area, right after meta); the restore reopens
// each path onto the same number, before any memory is overwritten, so a FILE* in the arena
// comes back with its descriptor. Descriptors below the range (fresh MPI sockets...) are never
// touched. Pipes, sockets, devices, and descriptors the application puts below the range
// (dup2 onto 1, freopen of stdout) are not carried: they refuse the checkpoint
// (uncarried_fds.hpp, standard_fds.hpp).
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "checkpoint/memory/src/input_identity.hpp"

namespace yadokari::memory {

inline constexpr int kFdBase = 900;     // first descriptor of the reserved range
inline constexpr int kMaxAppFds = 128;  // carried descriptors at most
inline constexpr std::size_t kFdPathMax = 4096;

// One carried descriptor, as stored in the fds area.
struct FdRecord {
  std::int32_t fd;
  std::int32_t flags;  // for the reopen: access mode, O_APPEND, O_NONBLOCK, O_SYNC, O_CLOEXEC...
  // An earlier record's descriptor this one shares its open file (and so its offset) with, as a
  // dup makes; -1 if none. Restored as a dup of that one, not opened on its own.
  std::int32_t same_file_as;
  std::int32_t reserved;
  std::int64_t offset;   // lseek(fd, 0, SEEK_CUR) at the checkpoint (after the stdio flush)
  std::int64_t size;     // the file's size at the checkpoint (files open for writing are cut back to it)
  std::uint64_t stream;  // the FILE* using it (in the arena), 0 if none known
  // A file open for reading only (and not written through another of the application's
  // descriptors): what it was, checked at the restore (input_identity.hpp). Otherwise kDigestNone.
  InputIdentity input;
  char path[kFdPathMax];  // absolute
};

// Resolves the real functions (load time; also called lazily before that).
void resolve_fd_functions();

// /proc/self/fd/N: the absolute path of what is open on `fd`, into `out` (kFdPathMax bytes).
bool fd_path(int fd, char* out);
// Whether `fd` is one of the application's files the table carries.
bool is_app_file(int fd);
// The application's files deleted while it keeps them open (no link left), with the path they
// were opened by (at most `max`); returns how many.
struct DeletedFile {
  int fd;
  char path[kFdPathMax];
};
int deleted_app_files(DeletedFile* out, int max);
// The application's carried stdio streams (at most `max`); returns how many.
int app_streams(FILE** out, int max);

// Capture: fills `out` (kMaxAppFds entries) with the open carried descriptors; returns how many.
int capture_fds(FdRecord* out);

// Restore, before any memory is modified: checks that every descriptor number is free and every
// file can be opened, then reopens them onto their numbers at their offsets. On failure: false,
// one-line reason in `why`, and no descriptor of this process changed.
bool reopen_fds(const FdRecord* records, int n, char* why, std::size_t why_len);

// libgfortran's OPEN runs inside a library scope (the unit it builds is library state), but the
// file it opens is the application's. While one of these lives on this thread, a regular file
// opened is moved to the reserved range anyway; with a `target` (a restore reconnecting a unit)
// the first one is put exactly on that number (dup3: it replaces what reopen_fds put there).
class AdoptOpens {
 public:
  explicit AdoptOpens(int target = -1);
  ~AdoptOpens();
  AdoptOpens(const AdoptOpens&) = delete;
  AdoptOpens& operator=(const AdoptOpens&) = delete;
};

// After the memory is back: the restored FILE structs are put on the fresh libc's list of open
// streams again (so fflush(NULL) and exit() flush them).
void relink_app_streams();

}  // namespace yadokari::memory
