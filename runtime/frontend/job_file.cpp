#include "runtime/frontend/job_file.hpp"

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/json_whole.hpp"
#include "common/error.hpp"
#include "runtime/frontend/frontend_error.hpp"
#include "checkpoint/image/fd_io.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/storage/storage_error.hpp"

namespace yadokari::frontend {
namespace fs = std::filesystem;

// The layout version of job.json; a restart refuses versions it does not know.
constexpr int kJobFileFormat = 1;

fs::path job_file_path(const fs::path& ckpt_dir) { return ckpt_dir / "job.json"; }

void write_job_file(const fs::path& ckpt_dir, const JobFile& job) {
  const nlohmann::json json = {
      {"format", kJobFileFormat},     {"app", job.app},       {"args", job.args},         {"flavour", job.flavour},
      {"world_size", job.world_size}, {"job_id", job.job_id}, {"mpi_args", job.mpi_args}, {"hosts", job.hosts}};
  // Durable like the MANIFEST: a restart needs job.json as much as the epochs.
  try {
    write_file_atomically(job_file_path(ckpt_dir), json.dump(2) + "\n", Durability::survives_crash);
  } catch (const IoError& e) {
    throw FrontendError(ErrorKind::failure, e.what());
  }
}

JobFile read_job_file(const fs::path& ckpt_dir) {
  const fs::path path = job_file_path(ckpt_dir);
  std::error_code missing;
  if (!fs::exists(path, missing))
    throw FrontendError(ErrorKind::failure, ckpt_dir.string() +
                                                " has no job.json (not a checkpoint directory of "
                                                "yadokari run)");
  std::string text;
  try {
    text = image::io::read_regular_file(path.string());
  } catch (const image::ImageError& e) {
    throw FrontendError(ErrorKind::failure, e.what());
  }
  try {
    const auto json = nlohmann::json::parse(text);
    if (json_whole<int>(json, "format") != kJobFileFormat)
      throw std::runtime_error("format " + json.at("format").dump() + " is not " + std::to_string(kJobFileFormat));
    JobFile job;
    json.at("app").get_to(job.app);
    json.at("args").get_to(job.args);
    json.at("flavour").get_to(job.flavour);
    job.world_size = json_whole<int>(json, "world_size");
    json.at("job_id").get_to(job.job_id);
    json.at("mpi_args").get_to(job.mpi_args);
    json.at("hosts").get_to(job.hosts);
    if (job.app.empty() || job.world_size < 1) throw std::runtime_error("no app or no ranks");
    return job;
  } catch (const std::exception& e) {
    throw FrontendError(ErrorKind::failure, path.string() + " is not a valid job description: " + e.what());
  }
}

}  // namespace yadokari::frontend
