#pragma once
// D/job.json: what `yadokari run --ckpt-dir D` launched, so `yadokari restart --ckpt-dir D` can
// launch the same application again. Written once by `run` (tmp + rename); `restart` only reads
// it, so it keeps describing the original job.
#include <filesystem>
#include <string>
#include <vector>

namespace yadokari::frontend {

struct JobFile {
  std::string app;                // absolute path of the executable
  std::vector<std::string> args;  // the application's arguments
  std::string flavour;            // "openmpi" or "mpich"
  int world_size = 0;             // -n
  std::string job_id;             // of the job that wrote it
  std::string mpi_args;           // --mpi-args as given
  std::string hosts;              // --hosts as given
};

std::filesystem::path job_file_path(const std::filesystem::path& ckpt_dir);

// Throws FrontendError(failure) if it cannot be written.
void write_job_file(const std::filesystem::path& ckpt_dir, const JobFile& job);

// Throws FrontendError(failure): "D has no job.json (not a checkpoint directory of yadokari run)" or
// "D/job.json is not a valid job description: ...".
JobFile read_job_file(const std::filesystem::path& ckpt_dir);

}  // namespace yadokari::frontend
