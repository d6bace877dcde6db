#include "runtime/launch/shared_memory_dir.hpp"

#include <sys/stat.h>

#include <system_error>

namespace yadokari::launch {

SharedMemoryDir::SharedMemoryDir(const std::filesystem::path& base, const std::string& job_id) {
  const std::filesystem::path dir = base / ("yadokari." + job_id);
  // mkdir fails on an existing name: the directory is this job's alone, never someone's symlink.
  if (::mkdir(dir.c_str(), 0700) == 0) path_ = dir;
}

SharedMemoryDir::~SharedMemoryDir() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace yadokari::launch
