#pragma once
// Which processes an agent may stop: only those of its own job. A StopProcesses order names pids;
// an agent that killed whatever it was told would let anyone who reaches it (a fake or confused
// coordinator) kill any process of its user on the node.
#include <string>
#include <sys/types.h>

#include <vector>

namespace yadokari::agent {

// True when `pid` was started with YADOKARI_JOB_ID=<job_id> in its environment (every rank and
// launcher process of a job is). Reads /proc/<pid>/environ, so it also answers false for a pid that
// is gone or belongs to another user.
bool belongs_to_job(pid_t pid, const std::string& job_id);

// False for a pid that has ended: gone, or a zombie waiting for its parent (it runs no code).
bool still_running(pid_t pid);

// Every process of job `job_id` on this node: in this process's network namespace (a simulated
// node shares the host's pid namespace with the others, never its network one), neither this
// process nor one of its ancestors (the front end may run on this host).
std::vector<pid_t> job_processes_here(const std::string& job_id);

}  // namespace yadokari::agent
