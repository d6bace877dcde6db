// The rank's open journal: see open_journal_steps.hpp.
#include "pmpi-layer/src/cut/open_journal_steps.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <limits>

#include "checkpoint/memory/open_journal.hpp"
#include "common/parameters.hpp"
#include "pmpi-layer/src/objects/world.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"

namespace yadokari::shim::cut {
namespace {

// The oldest epoch of `dir` with a MANIFEST (docs/formats/manifest.md); the largest number when
// there is none. A prune racing with this can only make it older than the truth, which keeps more.
std::uint64_t oldest_committed_epoch(const std::string& dir) {
  std::uint64_t oldest = std::numeric_limits<std::uint64_t>::max();
  DIR* d = opendir(dir.c_str());
  if (!d) return oldest;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.empty() || name.size() > 19 || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::uint64_t epoch = std::stoull(name);
    struct stat st {};
    if (epoch < oldest && stat((dir + "/" + name + "/MANIFEST").c_str(), &st) == 0) oldest = epoch;
  }
  closedir(d);
  return oldest;
}

void begin(const std::string& dir, std::uint64_t epoch) {
  std::string why;
  if (!memory::start_open_journal(dir.c_str(), epoch, why)) {
    print_line("yadokari: rank %d cannot journal the files it opens after epoch %llu: %s", identity().logical_rank,
               static_cast<unsigned long long>(epoch), why.c_str());
    return;
  }
  const std::uint64_t oldest = oldest_committed_epoch(std::getenv(yadokari::parameters::kCkptDir));
  if (oldest != std::numeric_limits<std::uint64_t>::max()) memory::remove_open_journal(dir.c_str(), 0, oldest);
}

}  // namespace

std::string open_journal_dir() {
  const char* dir = std::getenv(yadokari::parameters::kCkptDir);
  if (!dir || !*dir) return "";
  return std::string(dir) + "/open-journal/rank-" + std::to_string(identity().logical_rank);
}

void begin_open_journal_generation(std::uint64_t epoch) {
  const std::string dir = open_journal_dir();
  if (dir.empty()) return;
  const int saved_errno = errno;  // the application's: this runs inside its MPI call
  begin(dir, epoch);
  errno = saved_errno;
}

}  // namespace yadokari::shim::cut
