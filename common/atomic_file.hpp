#pragma once
// Writing a small file (a MANIFEST, job.json, a job record, the simulated cluster's state) so that
// readers see it whole or not at all: <path>.tmp, then rename over <path>. The tmp name is removed
// first and created O_EXCL|O_NOFOLLOW, so whoever can write the directory cannot redirect the write
// to another file through a symlink.
#include <filesystem>
#include <string>
#include <sys/types.h>

#include "common/durability.hpp"

namespace yadokari {

// Throws IoError naming the file. The parent directory is opened once and every step after that
// (create, rename, fsync) is relative to it: nothing resolves the path again.
void write_file_atomically(const std::filesystem::path& path, const std::string& text, Durability durability,
                           mode_t mode = 0644);

// The same inside a directory the caller opened (posix::open_directory); `name` is a plain file
// name in it, `path` names the file in errors.
void write_file_atomically_at(int directory_fd, const std::string& name, const std::filesystem::path& path,
                              const std::string& text, Durability durability, mode_t mode = 0644);

}  // namespace yadokari
