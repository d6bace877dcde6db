#pragma once
// Output files a process started to restore would empty before its restore (checkpoint/memory/
// README.md, "Files truncated again before the restore point"). Its code before MPI_Init runs again
// (docs/architecture.md, pitfall 10): an `fopen(…, "w")` or `open(O_TRUNC)` there would empty a file
// that the restore then reopens at its checkpoint offset, and everything the application wrote
// before the checkpoint would be zeros. So, in such a process and in application context only,
// opens for writing do not truncate; a file closed again before the restore is cut at the offset
// it was written to (what the truncating open and the writes would have left), and a file still
// open at the restore keeps what it holds (the restore cuts the files it carries back to their
// size at the checkpoint: written_files.hpp). The same holds for a Fortran OPEN (libgfortran opens
// with O_TRUNC for STATUS='REPLACE', inside the library scope of the interposed OPEN) and for an
// ftruncate that shrinks a file (libgfortran cuts a sequential file after the record a WRITE ends).
// A truncate(2) by path that would shrink a file is left out altogether: the file is the first
// incarnation's, which the restore and the open journal cut back to its size at the checkpoint.
#include <sys/types.h>

#include <cstdio>

namespace yadokari::memory {

// Whether an open with these flags, now, on this thread, leaves out O_TRUNC.
bool defers_truncation(int flags);

// Around a library call that opens a file for the application (a Fortran OPEN, which runs in a
// library scope): its opens defer their truncation as the application's own would.
class ApplicationOpens {
 public:
  ApplicationOpens();
  ~ApplicationOpens();
  ApplicationOpens(const ApplicationOpens&) = delete;
  ApplicationOpens& operator=(const ApplicationOpens&) = delete;

 private:
  bool deferring_;
};

// libc's ftruncate and truncate, for the layer's own cuts (the interposed ones may leave a cut out).
int real_ftruncate(int fd, off_t length);
int real_truncate(const char* path, off_t length);
// The same for an fopen mode ("w", "w+", "wbe"...): an fopen that would truncate.
bool defers_truncation(const char* mode);

// The flags of open(2) that fopen uses for `mode` ("w", "a+", "rbe"...; O_RDONLY for none). For a
// mode defers_truncation(mode) accepted, the descriptor is opened with these minus O_TRUNC, and
// stream_fdopen_mode is the mode for fdopen (which never truncates) on it.
int stdio_open_flags(const char* mode);
const char* stream_fdopen_mode(const char* mode);
// A ",ccs=" mode sets up a wide-character conversion, which only fopen and freopen do (not
// fdopen): such a stream is opened by path like freopen's.
bool has_conversion(const char* mode);
// For freopen and ",ccs=" fopen (which take a path, not a descriptor): the mode that opens the
// file, created beforehand, for writing without truncating it ("r+", with "e" and the ",ccs=..."
// part kept), in `out`; false if it does not fit.
bool stream_reopen_mode(const char* mode, char* out, std::size_t size);

// `fd` was opened with its truncation left out (no effect for fd < 0).
void note_truncation_deferred(int fd);

// Before `fd` is closed: if its truncation was left out, the file is cut at the descriptor's
// offset now. `stream`, if given, is flushed first.
void truncate_deferred_before_close(int fd, FILE* stream);

// At the restore: the files still open keep their contents.
void forget_deferred_truncations();

}  // namespace yadokari::memory
