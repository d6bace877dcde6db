#include "agent/job_processes.hpp"

#include <fstream>
#include <iterator>

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

}  // namespace yadokari::agent
