#pragma once
// Writing a small file (a MANIFEST, job.json, a job record, the simulated cluster's state) so that
// readers see it whole or not at all: <path>.tmp, then rename over <path>. The tmp name is removed
// first and created O_EXCL|O_NOFOLLOW, so whoever can write the directory cannot redirect the write
// to another file through a symlink.
#include <filesystem>
#include <string>
#include <sys/types.h>

namespace yadokari {

enum class Durability {
  // fsync of the file before the rename and of the directory after it: the file survives a crash
  // of the machine (MANIFEST, job.json: a restart needs them).
  survives_crash,
  // No fsync: enough for files that die with the process that wrote them (job records).
  process_lifetime,
};

// Throws IoError naming the file.
void write_file_atomically(const std::filesystem::path& path, const std::string& text, Durability durability,
                           mode_t mode = 0644);

}  // namespace yadokari
