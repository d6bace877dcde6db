// Writing to a child's stdin pipe (cli/child_process): a child that has already ended must not
// take the front end down with SIGPIPE (a remote shell that could not reach its host). A launcher
// started tied to the front end ends when the front end dies.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <thread>

#include "runtime/frontend/child_process.hpp"

using namespace yadokari::frontend;

namespace {

int wait_for_exit(pid_t child) {
  for (;;) {
    if (const std::optional<int> code = try_reap(child)) return *code;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

bool sigpipe_pending() {
  sigset_t pending;
  sigpending(&pending);
  return sigismember(&pending, SIGPIPE) == 1;
}

}  // namespace

TEST_CASE("write_to_child delivers a line to a child that reads its stdin", "[child_process]") {
  int stdin_fd = -1;
  // Exits 0 only if the first line is exactly the one written.
  const pid_t child = spawn_process_with_pipe({"/bin/sh", "-c", "read -r line && [ \"$line\" = 'job-1 s3cret' ]"},
                                              {"PATH=/usr/bin:/bin"}, stdin_fd);
  CHECK(write_to_child(stdin_fd, "job-1 s3cret\n"));
  close(stdin_fd);
  CHECK(wait_for_exit(child) == 0);
}

TEST_CASE("write_to_child to a child that has ended returns false instead of raising SIGPIPE", "[child_process]") {
  int stdin_fd = -1;
  const pid_t child = spawn_process_with_pipe({"/bin/sh", "-c", "exit 255"}, {}, stdin_fd);
  REQUIRE(wait_for_exit(child) == 255);  // the read end is closed now
  // With SIGPIPE's default action this process (the test runner) would end here.
  CHECK_FALSE(write_to_child(stdin_fd, "job-1 s3cret\n"));
  CHECK_FALSE(sigpipe_pending());  // consumed, not left to hit the next unblock
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  CHECK_FALSE(sigismember(&mask, SIGPIPE));  // the caller's mask is back as it was
  close(stdin_fd);
}

namespace {

// Ended, or a zombie nobody reaps yet: it runs no code any more.
bool ended(pid_t pid) {
  if (kill(pid, 0) != 0) return true;
  FILE* stat = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!stat) return true;
  char text[512] = {};
  const std::size_t n = std::fread(text, 1, sizeof text - 1, stat);
  std::fclose(stat);
  const std::string line(text, n);
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

}  // namespace

TEST_CASE("a tied child gets its signal when the process that started it dies", "[child_process]") {
  int ends[2];
  REQUIRE(pipe(ends) == 0);
  // A stand-in front end: starts the tied child, says its pid, and dies.
  const pid_t front_end = fork();
  REQUIRE(front_end >= 0);
  if (front_end == 0) {
    close(ends[0]);
    const pid_t child = spawn_tied_process({"/bin/sleep", "600"}, {}, SIGTERM);
    (void)!write(ends[1], &child, sizeof child);
    _exit(0);
  }
  close(ends[1]);
  pid_t child = 0;
  REQUIRE(read(ends[0], &child, sizeof child) == static_cast<ssize_t>(sizeof child));
  close(ends[0]);
  CHECK(wait_for_exit(front_end) == 0);
  // The cap only turns a hang into a failure.
  bool gone = false;
  for (int i = 0; i < 2000 && !gone; ++i) {
    gone = ended(child);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(gone);
  if (!gone) kill(child, SIGKILL);
}

TEST_CASE("a tied child that cannot be started is one error with the reason", "[child_process]") {
  try {
    (void)spawn_tied_process({"/nonexistent/launcher"}, {}, SIGTERM);
    FAIL("no error");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()) == "cannot start /nonexistent/launcher: No such file or directory");
  }
}
