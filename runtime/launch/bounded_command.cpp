#include "runtime/launch/bounded_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace yadokari::launch {
namespace {

constexpr int kExecFailed = 127;  // the child's exit code when execvp fails, as a shell's

void close_both(int fds[2]) {
  close(fds[0]);
  close(fds[1]);
}

}  // namespace

CommandResult run_bounded(const std::vector<std::string>& argv, std::chrono::milliseconds limit) {
  CommandResult result;
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) return result;
  if (pipe2(err, O_CLOEXEC) != 0) {
    close_both(out);
    return result;
  }
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    close_both(out);
    close_both(err);
    return result;
  }
  if (child == 0) {
    // Only async-signal-safe calls between fork and exec (the CLI may have ZeroMQ's threads).
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    execvp(args[0], args.data());
    _exit(kExecFailed);
  }
  close(out[1]);
  close(err[1]);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_pipes = 2;
  while (open_pipes > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    const int ready = poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      const ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_pipes;
      }
    }
  }
  // Kill it when the time is up; also a child that closed its output early is not waited for longer.
  if (result.timed_out) kill(child, SIGKILL);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(child, &status, result.timed_out ? 0 : WNOHANG);
    if (done == child || (done < 0 && errno != EINTR)) break;
    if (done == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        result.timed_out = true;
        kill(child, SIGKILL);
      } else {
        usleep(10000);
      }
    }
  }
  for (auto& fd : fds)
    if (fd.fd >= 0) close(fd.fd);
  result.started = !(WIFEXITED(status) && WEXITSTATUS(status) == kExecFailed && result.out.empty());
  if (!result.timed_out && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

}  // namespace yadokari::launch
