#include "runtime/agent/detector_priority.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <string>

namespace yadokari::agent {

void raise_thread_priority() { (void)setpriority(PRIO_PROCESS, 0, kDetectorNice); }

void take_own_scheduling_group() {
  if (setsid() < 0) return;  // already a session leader: its group is its own
  // The autogroup's nice (sched(7), "The autogroup feature"); absent without autogroup support.
  const int fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  const std::string nice = std::to_string(kDetectorNice);
  (void)!write(fd, nice.data(), nice.size());
  close(fd);
}

}  // namespace yadokari::agent
