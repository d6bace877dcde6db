#pragma once
// Open MPI's shared-memory transport (vader) keeps each rank's segment in /dev/shm, named after
// the host and the job (vader_segment.<host>.<jobid>.<local rank>), not in the session directory
// that launcher_leftovers.hpp cleans: a launcher killed for --stop-after-epoch or a stop cannot
// remove them, and every such job left megabytes behind. A local job's segments go to a private
// directory there instead (OMPI_MCA_btl_vader_backing_directory), removed with everything in it
// when the front end is done with the job. (A simulated cluster's jobs use their job directory.)
#include <filesystem>
#include <string>

namespace yadokari::launch {

class SharedMemoryDir {
 public:
  // Creates <base>/yadokari.<job_id> (mode 0700). path() is empty when that is not possible
  // (no such base, not writable): the launcher then keeps its own default.
  SharedMemoryDir(const std::filesystem::path& base, const std::string& job_id);
  ~SharedMemoryDir();
  SharedMemoryDir(const SharedMemoryDir&) = delete;
  SharedMemoryDir& operator=(const SharedMemoryDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace yadokari::launch
