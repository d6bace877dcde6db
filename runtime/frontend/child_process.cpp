#include "frontend/child_process.hpp"

#include <signal.h>
#include <spawn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "frontend/frontend_error.hpp"

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
