#include "runtime/control/job_registry.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_whole.hpp"
#include "common/parameters.hpp"

namespace yadokari::control {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& what, const fs::path& path, int error) {
  throw RegistryError(what + " " + path.string() + ": " + std::strerror(error));
}

// A directory only we can use: created 0700, and never one planted by another user in /tmp.
void ensure_private_dir(const fs::path& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) fail("cannot create", dir, errno);
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) fail("cannot stat", dir, errno);
  if (!S_ISDIR(st.st_mode)) throw RegistryError(dir.string() + " is not a directory");
  if (st.st_uid != geteuid())
    throw RegistryError("state directory " + dir.string() + " belongs to another user; set YADOKARI_STATE_DIR");
}

bool process_alive(std::int64_t pid) {
  if (pid <= 0) return false;
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

json to_json(const JobRecord& r) {
  return json{{"job_id", r.job_id},
              {"pid", r.pid},
              {"status_endpoint", r.status_endpoint},
              {"credential", r.credential},
              {"app", r.app},
              {"flavour", r.flavour},
              {"ranks", r.ranks},
              {"started", r.started},
              {"netns_pid", r.netns_pid},
              {"slurm_job_id", r.slurm_job_id},
              {"slurm_node_list", r.slurm_node_list}};
}

JobRecord from_json(const json& j) {
  JobRecord r;
  j.at("job_id").get_to(r.job_id);
  r.pid = json_whole<std::int64_t>(j, "pid");
  j.at("status_endpoint").get_to(r.status_endpoint);
  j.at("credential").get_to(r.credential);
  j.at("app").get_to(r.app);
  j.at("flavour").get_to(r.flavour);
  r.ranks = json_whole<std::int32_t>(j, "ranks");
  j.at("started").get_to(r.started);
  r.netns_pid = j.contains("netns_pid") ? json_whole<std::int64_t>(j, "netns_pid") : 0;
  if (j.contains("slurm_job_id")) j.at("slurm_job_id").get_to(r.slurm_job_id);
  if (j.contains("slurm_node_list")) j.at("slurm_node_list").get_to(r.slurm_node_list);
  return r;
}

}  // namespace

fs::path state_dir() {
  fs::path dir;
  if (const char* configured = std::getenv(yadokari::parameters::kStateDir); configured && *configured) {
    dir = configured;
    std::error_code ec;
    fs::create_directories(dir.parent_path(), ec);  // only the last level must be private
  } else {
    const fs::path run_user = "/run/user/" + std::to_string(geteuid());
    std::error_code ec;
    dir = fs::is_directory(run_user, ec) && access(run_user.c_str(), W_OK) == 0
              ? run_user / "yadokari"
              : fs::path("/tmp/yadokari-" + std::to_string(geteuid()));
  }
  ensure_private_dir(dir);
  return dir;
}

bool is_valid_job_id(const std::string& job_id) {
  if (job_id.empty() || job_id.size() > 128 || job_id.front() == '.') return false;
  return std::all_of(job_id.begin(), job_id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

PublishedJob::PublishedJob(const fs::path& state_dir, const JobRecord& record) {
  if (!is_valid_job_id(record.job_id)) throw RegistryError("invalid job id '" + record.job_id + "'");
  const fs::path jobs = state_dir / "jobs";
  ensure_private_dir(jobs);
  // The records of front ends that died without cleaning up (SIGKILL, a lost host) go now, not
  // only when someone next asks for the running jobs: `yadokari restart` after such a death
  // would otherwise leave the dead job's record behind.
  (void)running_jobs(state_dir);
  file_ = jobs / (record.job_id + ".json");
  // Readers never see half a record; a record dies with the front end, so no fsync.
  try {
    write_file_atomically(file_, to_json(record).dump(2) + "\n", Durability::process_lifetime, 0600);
  } catch (const IoError& e) {
    throw RegistryError(e.what());
  }
}

PublishedJob::~PublishedJob() { unlink(file_.c_str()); }

std::vector<JobRecord> running_jobs(const fs::path& state_dir) {
  std::vector<JobRecord> jobs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(state_dir / "jobs", ec)) {
    if (entry.path().extension() != ".json") continue;
    JobRecord record;
    try {
      std::ifstream in(entry.path());
      record = from_json(json::parse(in));
    } catch (const std::exception&) {
      continue;  // not ours to judge: maybe a newer yadokari's format
    }
    if (process_alive(record.pid)) {
      jobs.push_back(std::move(record));
    } else {
      fs::remove(entry.path(), ec);  // its front end died without cleaning up
    }
  }
  std::sort(jobs.begin(), jobs.end(), [](const JobRecord& a, const JobRecord& b) { return a.job_id < b.job_id; });
  return jobs;
}

}  // namespace yadokari::control
