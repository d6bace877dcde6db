#pragma once
// Output files a process started to restore would empty before its restore (checkpoint/memory/
// README.md, "Files truncated again before the restore point"). Its code before MPI_Init runs again
// (docs/architecture.md, pitfall 10): an `fopen(…, "w")` or `open(O_TRUNC)` there would empty a file
// that the restore then reopens at its checkpoint offset, and everything the application wrote
// before the checkpoint would be zeros. So, in such a process and in application context only,
// opens for writing do not truncate; a file closed again before the restore is cut at the offset
// it was written to (what the truncating open and the writes would have left), and a file still
// open at the restore keeps what it holds (the restore cuts the files it carries back to their
// size at the checkpoint: written_files.hpp).
#include <cstdio>

namespace yadokari::memory {

// Whether an open with these flags, now, on this thread, leaves out O_TRUNC.
bool defers_truncation(int flags);
// The same for an fopen mode ("w", "w+", "wbe"...): an fopen that would truncate.
bool defers_truncation(const char* mode);

// The flags of open(2) that fopen uses for `mode` ("w", "a+", "rbe"...; O_RDONLY for none). For a
// mode defers_truncation(mode) accepted, the descriptor is opened with these minus O_TRUNC, and
// stream_fdopen_mode is the mode for fdopen (which never truncates) on it.
int stdio_open_flags(const char* mode);
const char* stream_fdopen_mode(const char* mode);

// `fd` was opened with its truncation left out (no effect for fd < 0).
void note_truncation_deferred(int fd);

// Before `fd` is closed: if its truncation was left out, the file is cut at the descriptor's
// offset now. `stream`, if given, is flushed first.
void truncate_deferred_before_close(int fd, FILE* stream);

// At the restore: the files still open keep their contents.
void forget_deferred_truncations();

}  // namespace yadokari::memory
