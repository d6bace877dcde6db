// The stand-in: see standin_command.hpp.
#include "runtime/cli/standin_command.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>

#include "protocol/launcher_handoff.hpp"
#include "runtime/cli/cli_error.hpp"
#include "common/parameters.hpp"

extern char** environ;

namespace yadokari::cli {
namespace {

// The kept process, once connected: a signal the launcher sends the stand-in (an abort of the job)
// is passed on to it, as if the launcher had signalled the rank itself.
volatile pid_t g_kept_pid = 0;

void pass_on(int sig) {
  if (g_kept_pid > 0) ::kill(g_kept_pid, sig);
  ::_exit(128 + sig);
}

// The logical rank this process of the launch stands in for: the launcher's rank (MPICH's Hydra,
// Open MPI's mpirun), through YADOKARI_RANK_MAP when the launch has one (real rank i hosts logical
// rank MAP[i], as the shim reads it: pmpi-layer/src/objects/world.cpp).
int logical_rank() {
  int rank = -1;
  for (const char* name : {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"})
    if (const char* v = std::getenv(name); v && *v && rank < 0) rank = std::atoi(v);
  if (rank < 0)
    throw CliError(exit_code::usage,
                   "stand-in: no rank from a launcher (PMI_RANK, OMPI_COMM_WORLD_RANK) in the environment");
  const char* map = std::getenv(yadokari::parameters::kRankMap);
  if (!map || !*map) return rank;
  std::stringstream entries(map);
  std::string entry;
  for (int i = 0; std::getline(entries, entry, ','); ++i)
    if (i == rank) return std::atoi(entry.c_str());
  throw CliError(exit_code::usage, std::string("stand-in: ") + yadokari::parameters::kRankMap +
                                       " has no entry for rank " + std::to_string(rank));
}

int connect_to_kept(const std::string& path, double timeout) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) throw CliError(exit_code::usage, "stand-in: socket path too long: " + path);
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  for (;;) {
    const int sock = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock >= 0 && ::connect(sock, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return sock;
    const int err = errno;
    if (sock >= 0) ::close(sock);
    if (std::chrono::steady_clock::now() > deadline)
      throw CliError(exit_code::failure,
                     "stand-in: no kept process listens on " + path + " (" + std::strerror(err) + ")");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

int stand_in(const StandInOptions& options) {
  const int rank = logical_rank();
  const int sock = connect_to_kept(protocol::handoff_socket_path(options.dir, rank), options.timeout);
  ucred peer{};
  socklen_t len = sizeof peer;
  if (::getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0) g_kept_pid = peer.pid;
  for (const int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2}) ::signal(sig, pass_on);

  protocol::Handoff h;
  for (char** e = environ; *e; ++e)
    if (protocol::is_launcher_variable(*e)) h.variables.emplace_back(*e);
  if (const char* fd = std::getenv("PMI_FD"); fd && *fd) h.pmi_fd = std::atoi(fd);
  h.out = STDOUT_FILENO;
  h.err = STDERR_FILENO;
  std::string why;
  if (!protocol::send_handoff(sock, h, why))
    throw CliError(exit_code::failure, "stand-in of rank " + std::to_string(rank) + ": " + why);
  // The PMI socket is the kept process's now: the launcher must see it close when that one ends.
  if (h.pmi_fd >= 0) ::close(h.pmi_fd);
  const std::optional<int> status = protocol::receive_exit_status(sock);
  if (!status)
    throw CliError(exit_code::failure, "stand-in: the kept process of rank " + std::to_string(rank) + " (pid " +
                                           std::to_string(peer.pid) + ") ended without an exit status");
  return *status;
}

}  // namespace yadokari::cli
