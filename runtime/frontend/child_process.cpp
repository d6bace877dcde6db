#include "runtime/frontend/child_process.hpp"

#include <signal.h>
#include <spawn.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/frontend/frontend_error.hpp"

namespace yadokari::frontend {
namespace {

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const auto& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            const posix_spawn_file_actions_t* actions);

}  // namespace

pid_t spawn_process(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  return spawn(argv, env, nullptr);
}

pid_t spawn_tied_process(const std::vector<std::string>& argv, const std::vector<std::string>& env, int death_signal) {
  // posix_spawn cannot set a parent-death signal, so fork and exec by hand. The front end has
  // threads (ZeroMQ's): between fork and exec the child calls only async-signal-safe functions,
  // on arrays made before the fork. An exec failure comes back through a close-on-exec pipe.
  auto args = c_strings(argv);
  auto envp = c_strings(env);
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0)
    throw FrontendError(ErrorKind::failure, std::string("pipe: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    const int error = errno;
    close(report[0]);
    close(report[1]);
    throw FrontendError(ErrorKind::failure, "cannot start " + argv[0] + ": " + std::strerror(error));
  }
  if (child == 0) {
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    for (int signal = 1; signal < NSIG; ++signal) (void)sigaction(signal, &default_action, nullptr);
    sigset_t none;
    sigemptyset(&none);
    (void)sigprocmask(SIG_SETMASK, &none, nullptr);
    int error = 0;
    if (prctl(PR_SET_PDEATHSIG, death_signal) != 0) error = errno;
    if (error == 0 && getppid() != parent) _exit(128 + death_signal);  // it died before the tie
    if (error == 0) {
      execve(args[0], args.data(), envp.data());
      error = errno;
    }
    (void)!write(report[1], &error, sizeof error);
    _exit(127);
  }
  close(report[1]);
  int error = 0;
  ssize_t got;
  do {
    got = read(report[0], &error, sizeof error);
  } while (got < 0 && errno == EINTR);
  close(report[0]);
  if (got == static_cast<ssize_t>(sizeof error)) {
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    throw FrontendError(ErrorKind::failure, "cannot start " + argv[0] + ": " + std::strerror(error));
  }
  return child;
}

bool write_to_child(int stdin_fd, std::string_view text) {
  // Blocked in this thread only (a SIGPIPE from write() goes to the writing thread), and consumed
  // if the write raised it, so nothing of it is left pending; ignoring SIGPIPE process-wide instead
  // would be inherited by the launcher and the application.
  sigset_t pipe_signal, previous;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  bool written = true;
  while (!text.empty()) {
    const ssize_t n = write(stdin_fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      written = false;
      break;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  if (!written && errno == EPIPE && !sigismember(&previous, SIGPIPE)) {
    const timespec no_wait{};
    while (sigtimedwait(&pipe_signal, nullptr, &no_wait) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return written;
}

pid_t spawn_process_with_pipe(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                              int& stdin_fd) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0)
    throw FrontendError(ErrorKind::failure, std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, ends[0], 0);  // dup2 clears close-on-exec
  pid_t child = -1;
  try {
    child = spawn(argv, env, &actions);
  } catch (...) {
    posix_spawn_file_actions_destroy(&actions);
    close(ends[0]);
    close(ends[1]);
    throw;
  }
  posix_spawn_file_actions_destroy(&actions);
  close(ends[0]);
  stdin_fd = ends[1];
  return child;
}

namespace {

pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            const posix_spawn_file_actions_t* actions) {
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  auto args = c_strings(argv);
  auto envp = c_strings(env);
  pid_t child = -1;
  const int error = posix_spawn(&child, args[0], actions, &attributes, args.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  if (error != 0) throw FrontendError(ErrorKind::failure, "cannot start " + argv[0] + ": " + std::strerror(error));
  return child;
}

}  // namespace

std::optional<int> try_reap(pid_t child) {
  int status = 0;
  pid_t done;
  do {
    done = waitpid(child, &status, WNOHANG);
  } while (done < 0 && errno == EINTR);
  if (done < 0) throw FrontendError(ErrorKind::failure, std::string("waitpid: ") + std::strerror(errno));
  if (done != child) return std::nullopt;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return std::nullopt;
}

}  // namespace yadokari::frontend
