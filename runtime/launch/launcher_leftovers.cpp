#include "runtime/launch/launcher_leftovers.hpp"

#include <unistd.h>

#include <cstdlib>
#include <system_error>

namespace yadokari::launch {
namespace {

namespace fs = std::filesystem;

// The top session directories under the base whose names satisfy `wanted`. Errors (no base, a
// directory that vanished meanwhile) mean there is nothing to clean, never a failure of the job.
template <class Wanted>
std::vector<fs::path> top_dirs(Wanted wanted) {
  std::vector<fs::path> found;
  std::error_code error;
  for (fs::directory_iterator it(open_mpi_session_base(), error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with("ompi.") && wanted(name) && it->is_directory(error)) found.push_back(it->path());
  }
  return found;
}

}  // namespace

fs::path open_mpi_session_base() {
  for (const char* name : {"OMPI_MCA_orte_tmpdir_base", "TMPDIR", "TEMP", "TMP"})
    if (const char* value = std::getenv(name); value && *value) return value;
  return "/tmp";
}

int remove_open_mpi_session_dirs(const std::vector<pid_t>& pids) {
  const std::string user_suffix = "." + std::to_string(getuid());
  int removed = 0;
  for (const fs::path& top : top_dirs([&](const std::string& name) { return name.ends_with(user_suffix); })) {
    for (const pid_t pid : pids) {
      std::error_code error;
      if (pid > 0 && fs::remove_all(top / ("pid." + std::to_string(pid)), error) > 0 && !error) ++removed;
    }
    std::error_code ignored;
    fs::remove(top, ignored);  // only if now empty, as Open MPI itself does at the end of a job
  }
  return removed;
}

int remove_open_mpi_host_dirs(const std::string& hostname) {
  if (hostname.empty()) return 0;
  const std::string prefix = "ompi." + hostname + ".";
  int removed = 0;
  for (const fs::path& top : top_dirs([&](const std::string& name) { return name.starts_with(prefix); })) {
    std::error_code error;
    if (fs::remove_all(top, error) > 0 && !error) ++removed;
  }
  return removed;
}

}  // namespace yadokari::launch
