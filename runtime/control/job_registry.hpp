#pragma once
// Where a running job advertises itself to `yadokari status` and friends:
// <state dir>/jobs/<job id>.json, mode 0600 (it holds the job credential), present while the
// front end runs. Files left by a front end that died are ignored and cleaned up.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace yadokari::control {

struct JobRecord {
  std::string job_id;
  std::int64_t pid = 0;  // the front end (`yadokari run`)
  std::string status_endpoint;
  std::string credential;  // the job secret and the coordinator key (protocol/credential.hpp)
  std::string app;
  std::string flavour;
  std::int32_t ranks = 0;
  std::string started;  // ISO 8601, UTC
  // A process whose network namespace the status endpoint lives in (a job on a simulated
  // cluster listens inside the cluster's frontend); 0 = this host's.
  std::int64_t netns_pid = 0;
  // The Slurm job the front end runs in (SLURM_JOB_ID, the slurm platform); empty outside Slurm.
  // `yadokari status` asks Slurm about it.
  std::string slurm_job_id{};
  // Its nodes when the front end started (SLURM_JOB_NODELIST): Slurm drops a node that goes DOWN
  // from a --no-kill job's node list, and status still shows that node's state.
  std::string slurm_node_list{};
};

class RegistryError : public yadokari::Error {
 public:
  using yadokari::Error::Error;
};

// $YADOKARI_STATE_DIR, else /run/user/<uid>/yadokari, else /tmp/yadokari-<uid>.
// Created (mode 0700) if missing; a shared-/tmp directory someone else owns is refused.
std::filesystem::path state_dir();

// Job ids name files and directories, so they are restricted to [A-Za-z0-9._-].
bool is_valid_job_id(const std::string& job_id);

std::string utc_now_iso8601();

// Publishes a job for as long as the object lives.
class PublishedJob {
 public:
  PublishedJob(const std::filesystem::path& state_dir, const JobRecord& record);
  ~PublishedJob();
  PublishedJob(const PublishedJob&) = delete;
  PublishedJob& operator=(const PublishedJob&) = delete;

  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
};

// Jobs whose front end is still alive, sorted by job id. Removes records of dead front ends;
// skips files it cannot parse.
std::vector<JobRecord> running_jobs(const std::filesystem::path& state_dir);

}  // namespace yadokari::control
