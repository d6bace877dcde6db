#pragma once
// Command lines for the MPI implementations' own launchers. Pure functions: everything they
// depend on (paths, euid, environment names) comes in through LaunchPlan.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/launch/mpi_flavour.hpp"
#include "common/error.hpp"

namespace yadokari::launch {

class LaunchError : public yadokari::Error {
 public:
  using yadokari::Error::Error;
};

struct HostSlots {
  std::string host;
  int slots = 1;
};

// "h1:2,h2:4" (":slots" optional, default 1). Throws LaunchError naming the bad entry.
std::vector<HostSlots> parse_hosts(std::string_view spec);

// Splits like a POSIX shell without expansions: whitespace separates words; '...' is literal;
// "..." allows \" \\ \$ \`; a backslash outside quotes escapes the next character.
// Throws LaunchError on an unterminated quote or trailing backslash.
std::vector<std::string> split_shell_words(std::string_view text);

// "mpirun.openmpi" or "mpiexec.mpich" (Debian's names; plain mpirun/mpiexec are alternatives
// that may point at either MPI).
std::string_view launcher_name(MpiFlavour flavour);

// First executable `name` in a PATH-style list; empty entries mean the current directory.
std::optional<std::filesystem::path> find_in_path(std::string_view name, std::string_view path_list);

struct LaunchPlan {
  MpiFlavour flavour = MpiFlavour::openmpi;
  std::filesystem::path launcher;  // from find_in_path(launcher_name(flavour), ...)
  int ranks = 1;
  std::vector<HostSlots> hosts;  // empty: the launcher's default (this host)
  bool running_as_root = false;  // Open MPI refuses root without --allow-run-as-root
  // Variables already in the launcher's environment that the ranks must see (Open MPI only
  // forwards what it is told to with -x; Hydra forwards the whole environment).
  std::vector<std::string> forwarded_env;
  // Variables set for the ranks only, not for the launcher itself: LD_PRELOAD of the shim must
  // not load into mpirun/orted/hydra, only into the application.
  std::vector<std::pair<std::string, std::string>> rank_only_env;
  std::vector<std::string> mpi_args;  // user's extra launcher arguments, already split
  std::vector<std::string> app_argv;  // the application and its arguments
};

std::vector<std::string> launcher_argv(const LaunchPlan& plan);

}  // namespace yadokari::launch
