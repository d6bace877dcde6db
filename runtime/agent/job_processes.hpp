#pragma once
// Which processes an agent may stop: only those of its own job. A StopProcesses order names pids;
// an agent that killed whatever it was told would let anyone who reaches it (a fake or confused
// coordinator) kill any process of its user on the node.
#include <string>
#include <sys/types.h>

namespace yadokari::agent {

// True when `pid` was started with YADOKARI_JOB_ID=<job_id> in its environment (every rank and
// launcher process of a job is). Reads /proc/<pid>/environ, so it also answers false for a pid that
// is gone or belongs to another user.
bool belongs_to_job(pid_t pid, const std::string& job_id);

}  // namespace yadokari::agent
