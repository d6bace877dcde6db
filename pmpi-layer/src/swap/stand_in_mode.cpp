// A launch that takes kept processes as some of its ranks (a live move; docs/flows/migrate.md,
// "Live moves") starts the application under the shim for every rank, as any launch does, so the
// launcher's command line stays the one of a restart. The process of a rank listed in
// YADOKARI_KEPT_RANKS stands in for it (protocol/stand_in.hpp) before the application's main runs,
// and ends with the kept process's status.
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

#include "common/parameters.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"
#include "protocol/stand_in.hpp"

namespace yadokari::shim::swap {
namespace {

constexpr double kKeptProcessTimeout = 120.0;  // for the kept process to listen

bool listed(const char* list, int rank) {
  std::stringstream entries(list);
  std::string entry;
  while (std::getline(entries, entry, ','))
    if (!entry.empty() && std::atoi(entry.c_str()) == rank) return true;
  return false;
}

__attribute__((constructor)) void stand_in_if_kept() {
  namespace params = yadokari::parameters;
  const char* kept = std::getenv(params::kKeptRanks);
  if (!kept || !*kept) return;
  std::string why;
  const std::optional<int> rank = protocol::launch_logical_rank(why);
  if (!rank || !listed(kept, *rank)) return;  // not launched, or not a kept rank: the application runs
  const char* dir = std::getenv(params::kSwapDir);
  if (!dir || !*dir) {
    print_line("yadokari: rank %d is kept (%s) but %s is not set", *rank, params::kKeptRanks, params::kSwapDir);
    ::_exit(1);
  }
  const std::optional<int> status = protocol::stand_in(dir, *rank, kKeptProcessTimeout, why);
  if (!status) {
    print_line("yadokari: stand-in of rank %d: %s", *rank, why.c_str());
    ::_exit(1);
  }
  ::_exit(*status);  // none of the application's or the shim's exit handlers: nothing ran here
}

}  // namespace
}  // namespace yadokari::shim::swap
