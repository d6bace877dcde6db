#pragma once
// POSIX file primitives with EINTR and short transfers handled. They return an errno value (0 on
// success) instead of throwing, so each module turns a failure into its own error with its own
// wording (image/fd_io.hpp into ImageError, atomic_file.hpp into IoError).
#include <cstddef>
#include <cstdint>
#include <string>

namespace yadokari::posix {

// Opens a regular file read-only. A FIFO or device named where an image, a MANIFEST or job.json
// should be would block the reader for ever: it is refused without waiting for a writer.
// Returns -1 with `why` ("No such file or directory", "not a regular file") on failure.
int open_regular_file(const std::string& path, std::string& why);

// Reads up to `size` bytes at `offset` into `data`; `done` says how many (fewer only at the end of
// the file). Returns 0 or the errno of the failed pread.
int read_at(int fd, std::uint64_t offset, void* data, std::size_t size, std::size_t& done);

// Writes all of `data` at `offset` (pwrite: the file position is left alone). Returns 0 or errno.
int write_all_at(int fd, std::uint64_t offset, const void* data, std::size_t size);

// fsync of a directory, so that a rename or an unlink in it is durable. Returns 0 or errno.
int sync_directory(const std::string& directory);

// Whether the last component of a directory's path may be a symlink when it is opened.
enum class LastLink { follow, refuse };

// Opens a directory for the *at() calls (openat, renameat, unlinkat, fstatat): what is written
// relative to it stays in that directory even if its path is changed (the directory renamed, a
// symlink put in its place) between a check and a write, because the path is never resolved
// again. LastLink::refuse for directories yadokari made itself (an epoch's): a symlink there was
// planted. Returns -1 with `why` (and errno; ELOOP for a refused symlink) on failure.
int open_directory(const std::string& path, LastLink last, std::string& why);

// The directory part of a path ("." if there is none).
std::string parent_directory(const std::string& path);

}  // namespace yadokari::posix
