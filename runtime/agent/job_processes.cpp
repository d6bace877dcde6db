#include "runtime/agent/job_processes.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/process_status.hpp"

namespace yadokari::agent {

bool belongs_to_job(pid_t pid, const std::string& job_id) {
  if (pid <= 1 || job_id.empty()) return false;
  std::ifstream environ("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  if (!environ) return false;
  const std::string wanted = "YADOKARI_JOB_ID=" + job_id;
  std::string entry;
  while (std::getline(environ, entry, '\0'))
    if (entry == wanted) return true;
  return false;
}

bool still_running(pid_t pid) { return posix::process_running(pid); }

namespace {

std::string net_namespace(pid_t pid) {
  std::error_code error;
  const auto target = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/ns/net", error);
  return error ? std::string() : target.string();
}

pid_t parent_of(pid_t pid) {
  const auto status = posix::read_process_status(pid);
  return status ? status->parent : 0;
}

}  // namespace

std::vector<pid_t> job_processes_here(const std::string& job_id) {
  std::set<pid_t> ancestors;
  for (pid_t pid = getpid(); pid > 1 && ancestors.insert(pid).second;) pid = parent_of(pid);
  const std::string here = net_namespace(getpid());
  std::vector<pid_t> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::atoi(name.c_str()));
    if (ancestors.count(pid) || net_namespace(pid) != here || here.empty()) continue;
    if (belongs_to_job(pid, job_id)) found.push_back(pid);
  }
  return found;
}

}  // namespace yadokari::agent
