#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include <catch2/catch.hpp>

#include "common/process_status.hpp"

using yadokari::posix::process_running;
using yadokari::posix::read_process_status;
using yadokari::posix::read_process_status_from;

TEST_CASE("the status of this process names its parent and a running state", "[process_status]") {
  const auto status = read_process_status(getpid());
  REQUIRE(status);
  CHECK(status->parent == getppid());
  CHECK(status->state != 'Z');
  CHECK(process_running(getpid()));
}

TEST_CASE("a zombie is not running, a reaped process has no status", "[process_status]") {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(0);
  // Wait until it is a zombie, without reaping it.
  siginfo_t info{};
  REQUIRE(waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT) == 0);
  const auto zombie = read_process_status(child);
  REQUIRE(zombie);
  CHECK(zombie->state == 'Z');
  CHECK(zombie->parent == getpid());
  CHECK_FALSE(process_running(child));
  REQUIRE(waitpid(child, nullptr, 0) == child);
  CHECK_FALSE(read_process_status(child));
  CHECK_FALSE(process_running(child));
}

// The failure CI met: the file opened while the process existed, read after it was gone (ESRCH).
// The reader answers "no status" instead of throwing out of the watcher.
TEST_CASE("a process that goes after its file was opened gives no status, not an error", "[process_status]") {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(0);
  const std::string path = "/proc/" + std::to_string(child) + "/stat";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(waitpid(child, nullptr, 0) == child);
  CHECK_FALSE(read_process_status_from(fd));
  close(fd);
}
