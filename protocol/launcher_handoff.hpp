#pragma once
// The hand-over from a stand-in to a kept process, over a Unix socket (docs/flows/migrate.md,
// "Live moves: the kept ranks swap their MPI library"). A launch that takes a process which never
// exited as one of its ranks starts a stand-in in its place (`yadokari stand-in`); the stand-in
// sends what the launcher gave it — the launcher's variables, MPICH's PMI socket and its standard
// streams — and then waits for the kept process's exit status, which it exits with, so that the
// launcher sees an ordinary rank. Used by the stand-in (runtime/cli) and the shim (pmpi-layer).
#include <sys/un.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace yadokari::protocol {

// `path` as a Unix socket's address; false with `why` if it does not fit.
bool unix_socket_address(const std::string& path, sockaddr_un& address, std::string& why);

// Where the kept process of logical rank `rank` listens: DIR/rank-R.sock.
std::string handoff_socket_path(const std::string& dir, int rank);

// Variables a launch sets for its ranks (PMI_*, PMIX_*, OMPI_*, HYDRA_*, ..., and the placement's
// YADOKARI_RANK_MAP, which says which logical rank each real rank of this launch is): the ones
// handed over, and the ones a kept process drops before it takes the next launch's.
bool is_launcher_variable(std::string_view name_equals_value);

struct Handoff {
  std::vector<std::string> variables;  // "NAME=VALUE", each a launcher variable
  int pmi_fd = -1;                     // MPICH's PMI socket (the value of PMI_FD), or -1
  int out = -1, err = -1;              // the launcher's stdout and stderr for the rank
};

// Each returns false with `why` set on failure. The descriptors are sent with SCM_RIGHTS: the
// receiver gets its own copies (new numbers) in the Handoff it receives.
bool send_handoff(int sock, const Handoff& h, std::string& why);
std::optional<Handoff> receive_handoff(int sock, std::string& why);

// The kept process's exit status, sent once when it exits.
bool send_exit_status(int sock, int status);
// The status, or nothing if the kept process closed the socket without one (it was killed).
std::optional<int> receive_exit_status(int sock);

}  // namespace yadokari::protocol
