#pragma once
// The state letter and parent of a process, from /proc/<pid>/stat, for the code that watches the
// job's processes (front end, agents). A process may exit between any two system calls: reading
// the file of one that has just gone fails with ESRCH, and that is an answer ("gone"), never an
// exception.
#include <sys/types.h>

#include <optional>

namespace yadokari::posix {

struct ProcessStatus {
  char state = 0;  // 'R', 'S', 'D', 'Z' (zombie: runs no code any more), 'T', ...
  pid_t parent = 0;
};

// nullopt when the process does not exist (any more) or its file cannot be parsed.
std::optional<ProcessStatus> read_process_status(pid_t pid);

// The same from a /proc/<pid>/stat already open (the process may have gone since it was opened).
std::optional<ProcessStatus> read_process_status_from(int stat_fd);

// Alive and not a zombie.
bool process_running(pid_t pid);

}  // namespace yadokari::posix
