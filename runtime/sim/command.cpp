#include "runtime/sim/command.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "runtime/sim/sim_error.hpp"

namespace yadokari::sim {

std::string join_words(const std::vector<std::string>& words) {
  std::string joined;
  for (const auto& word : words) {
    if (!joined.empty()) joined += ' ';
    joined += word;
  }
  return joined;
}

CommandResult run_command(const std::vector<std::string>& argv) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw SimError(std::string("pipe: ") + std::strerror(errno));
  const pid_t child = fork();
  if (child < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    throw SimError(std::string("fork: ") + std::strerror(errno));
  }
  if (child == 0) {
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(pipe_fds[1], 1);
    dup2(pipe_fds[1], 2);
    // Nothing else inherited: a daemon started through here (slurmd, munged) would otherwise keep
    // the caller's descriptors open for its whole life, e.g. the lock file of `flock ... ctest`.
    close_range(3, ~0U, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    const std::string message = argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(2, message.data(), message.size());
    _exit(127);
  }
  close(pipe_fds[1]);
  CommandResult result;
  char buffer[4096];
  for (;;) {
    const ssize_t got = read(pipe_fds[0], buffer, sizeof buffer);
    if (got > 0) {
      result.output.append(buffer, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  while (!result.output.empty() && (result.output.back() == '\n' || result.output.back() == '\r')) {
    result.output.pop_back();
  }
  return result;
}

void run_checked(const std::vector<std::string>& argv) {
  const CommandResult result = run_command(argv);
  if (result.exit_code == 0) return;
  std::string output = result.output;
  for (auto& c : output) {
    if (c == '\n') c = ' ';
  }
  throw SimError(join_words(argv) + ": " + (output.empty() ? "exit code " + std::to_string(result.exit_code) : output));
}

std::vector<std::string> in_netns(pid_t holder, std::vector<std::string> argv) {
  std::vector<std::string> full{"nsenter", "-t", std::to_string(holder), "-n", "--"};
  full.insert(full.end(), argv.begin(), argv.end());
  return full;
}

bool in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return true;
  }
  return false;
}

void require_tool(const std::string& name, const std::string& package) {
  if (!in_path(name)) throw SimError(name + " not found in PATH (install " + package + ")", 127);
}

}  // namespace yadokari::sim
