#include "common/process_status.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

namespace yadokari::posix {

std::optional<ProcessStatus> read_process_status_from(int stat_fd) {
  std::string text;
  char chunk[512];
  for (;;) {
    const ssize_t got = ::read(stat_fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::nullopt;  // ESRCH: the process went after the file was opened
    if (got == 0) break;
    text.append(chunk, static_cast<std::size_t>(got));
  }
  const auto end_of_name = text.rfind(')');  // the name may hold spaces and parentheses
  if (end_of_name == std::string::npos) return std::nullopt;
  ProcessStatus status;
  int parent = 0;
  if (std::sscanf(text.c_str() + end_of_name + 1, " %c %d", &status.state, &parent) != 2) return std::nullopt;
  status.parent = static_cast<pid_t>(parent);
  return status;
}

std::optional<ProcessStatus> read_process_status(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  auto status = read_process_status_from(fd);
  ::close(fd);
  return status;
}

bool process_running(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  const auto status = read_process_status(pid);
  // kill() succeeded: a file that cannot be read means the process went in between.
  return status && status->state != 'Z';
}

}  // namespace yadokari::posix
