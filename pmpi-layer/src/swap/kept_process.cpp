// The kept process's side of the hand-over: see kept_process.hpp.
#include "pmpi-layer/src/swap/kept_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern char** environ;

namespace yadokari::shim::swap {
namespace {

int g_stand_in = -1;  // the newest stand-in's connection
bool g_reporting = false;

void report_exit(int status, void*) {
  std::fflush(nullptr);  // before the stand-in ends and its launcher stops reading
  if (g_stand_in >= 0) protocol::send_exit_status(g_stand_in, status);
}

}  // namespace

int listen_for_stand_in(const std::string& path, std::string& why) {
  sockaddr_un a{};
  if (!protocol::unix_socket_address(path, a, why)) return -1;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ::unlink(path.c_str());
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 1) != 0) {
    why = "cannot listen on " + path + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

std::optional<protocol::Handoff> wait_for_stand_in(int listener, double timeout_seconds, std::string& why) {
  pollfd p{listener, POLLIN, 0};
  int ready;
  do ready = ::poll(&p, 1, static_cast<int>(timeout_seconds * 1000));
  while (ready < 0 && errno == EINTR);
  if (ready <= 0) {
    why = "no stand-in came within " + std::to_string(static_cast<int>(timeout_seconds)) + " s";
    return std::nullopt;
  }
  const int sock = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  if (sock < 0) {
    why = std::string("cannot accept the stand-in: ") + std::strerror(errno);
    return std::nullopt;
  }
  std::optional<protocol::Handoff> h = protocol::receive_handoff(sock, why);
  if (!h) {
    ::close(sock);
    return std::nullopt;
  }
  if (g_stand_in >= 0) ::close(g_stand_in);  // the previous launch's stand-in is gone
  g_stand_in = sock;
  if (!g_reporting) g_reporting = ::on_exit(report_exit, nullptr) == 0;
  return h;
}

void take_launch(const protocol::Handoff& launch) {
  std::fflush(nullptr);
  std::vector<std::string> old;
  for (char** e = environ; *e; ++e)
    if (protocol::is_launcher_variable(*e)) old.emplace_back(*e, std::strcspn(*e, "="));
  for (const std::string& name : old) ::unsetenv(name.c_str());
  for (const std::string& kv : launch.variables) {
    const std::size_t eq = kv.find('=');
    ::setenv(kv.substr(0, eq).c_str(), kv.c_str() + eq + 1, 1);
  }
  ::dup2(launch.out, STDOUT_FILENO);
  ::dup2(launch.err, STDERR_FILENO);
  ::close(launch.out);
  ::close(launch.err);
  if (launch.pmi_fd >= 0) {
    ::fcntl(launch.pmi_fd, F_SETFD, 0);  // as a launched process has it
    ::setenv("PMI_FD", std::to_string(launch.pmi_fd).c_str(), 1);
  }
}

void end_with(int status) {
  std::fflush(nullptr);
  if (g_stand_in >= 0) protocol::send_exit_status(g_stand_in, status);
  std::_Exit(status);
}

}  // namespace yadokari::shim::swap
