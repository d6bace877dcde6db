#include "runtime/frontend/network_namespace.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "runtime/frontend/frontend_error.hpp"

namespace yadokari::frontend {

void enter_network_namespace(int pid, int* saved_fd) {
  *saved_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  const std::string path = "/proc/" + std::to_string(pid) + "/ns/net";
  const int target = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (*saved_fd < 0 || target < 0 || setns(target, CLONE_NEWNET) != 0) {
    const std::string why = std::strerror(errno);
    if (target >= 0) close(target);
    if (*saved_fd >= 0) close(*saved_fd);
    throw FrontendError(ErrorKind::failure, "cannot enter the simulated cluster's frontend (" + path + "): " + why);
  }
  close(target);
}

void leave_network_namespace(int saved_fd) {
  if (saved_fd < 0) return;
  (void)setns(saved_fd, CLONE_NEWNET);
  close(saved_fd);
}

}  // namespace yadokari::frontend
