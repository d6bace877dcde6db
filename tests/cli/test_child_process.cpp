// Writing to a child's stdin pipe (cli/child_process): a child that has already ended must not
// take the front end down with SIGPIPE (a remote shell that could not reach its host).
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "frontend/child_process.hpp"

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
