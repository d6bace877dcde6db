#pragma once
// Writing a small file (a MANIFEST, job.json) so that it appears whole or not at all, and stays
// after a crash: tmp + fsync + rename + fsync of the directory.
#include <filesystem>
#include <string>

namespace yadokari::storage {

// Throws StorageError naming the file.
void write_file_durably(const std::filesystem::path& path, const std::string& text);

}  // namespace yadokari::storage
