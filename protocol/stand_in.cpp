// The stand-in: see stand_in.hpp.
#include "protocol/stand_in.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "common/parameters.hpp"
#include "protocol/launcher_handoff.hpp"

extern char** environ;

namespace yadokari::protocol {
namespace {

// The kept process, once connected: a signal the launcher sends the stand-in (an abort of the job)
// is passed on to it, as if the launcher had signalled the rank itself.
volatile pid_t g_kept_pid = 0;

void pass_on(int sig) {
  if (g_kept_pid > 0) ::kill(g_kept_pid, sig);
  ::_exit(128 + sig);
}

int connect_to_kept(const std::string& path, double timeout, std::string& why) {
  sockaddr_un a{};
  if (!unix_socket_address(path, a, why)) return -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  for (;;) {
    const int sock = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock >= 0 && ::connect(sock, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return sock;
    const int err = errno;
    if (sock >= 0) ::close(sock);
    if (std::chrono::steady_clock::now() > deadline) {
      why = "no kept process listens on " + path + " (" + std::strerror(err) + ")";
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

std::optional<int> launch_logical_rank(std::string& why) {
  int rank = -1;
  for (const char* name : {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"})
    if (const char* v = std::getenv(name); v && *v && rank < 0) rank = std::atoi(v);
  if (rank < 0) {
    why = "no rank from a launcher (PMI_RANK, OMPI_COMM_WORLD_RANK) in the environment";
    return std::nullopt;
  }
  const char* map = std::getenv(yadokari::parameters::kRankMap);
  if (!map || !*map) return rank;
  std::stringstream entries(map);
  std::string entry;
  for (int i = 0; std::getline(entries, entry, ','); ++i)
    if (i == rank) return std::atoi(entry.c_str());
  why = std::string(yadokari::parameters::kRankMap) + " has no entry for rank " + std::to_string(rank);
  return std::nullopt;
}

std::optional<int> stand_in(const std::string& dir, int rank, double timeout_seconds, std::string& why) {
  const int sock = connect_to_kept(handoff_socket_path(dir, rank), timeout_seconds, why);
  if (sock < 0) return std::nullopt;
  ucred peer{};
  socklen_t len = sizeof peer;
  if (::getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0) g_kept_pid = peer.pid;
  for (const int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2}) ::signal(sig, pass_on);

  Handoff h;
  for (char** e = environ; *e; ++e)
    if (is_launcher_variable(*e)) h.variables.emplace_back(*e);
  if (const char* fd = std::getenv("PMI_FD"); fd && *fd) h.pmi_fd = std::atoi(fd);
  h.out = STDOUT_FILENO;
  h.err = STDERR_FILENO;
  if (!send_handoff(sock, h, why)) return std::nullopt;
  // The PMI socket is the kept process's now: the launcher must see it close when that one ends.
  if (h.pmi_fd >= 0) ::close(h.pmi_fd);
  const std::optional<int> status = receive_exit_status(sock);
  if (!status)
    why = "the kept process of rank " + std::to_string(rank) + " (pid " + std::to_string(peer.pid) +
          ") ended without an exit status";
  return status;
}

}  // namespace yadokari::protocol
