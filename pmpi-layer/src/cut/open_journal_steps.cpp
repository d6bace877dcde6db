// The rank's open journal: see open_journal_steps.hpp.
#include "pmpi-layer/src/cut/open_journal_steps.hpp"

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "checkpoint/memory/open_journal.hpp"
#include "checkpoint/memory/overwrite_journal.hpp"
#include "checkpoint/storage/epoch_store.hpp"
#include "common/parameters.hpp"
#include "pmpi-layer/src/objects/world.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"

namespace yadokari::shim::cut {
namespace {

void begin(const std::string& dir, std::uint64_t epoch) {
  std::string why;
  if (!memory::start_open_journal(dir.c_str(), epoch, why)) {
    print_line("yadokari: rank %d cannot journal the files it opens after epoch %llu: %s", identity().logical_rank,
               static_cast<unsigned long long>(epoch), why.c_str());
    return;
  }
  memory::keep_ahead_of_unseen_writes();
  // Generations older than the oldest committed epoch can no longer be restarted from. A prune
  // racing with this can only make the list older than the truth, which keeps more.
  const std::vector<std::uint64_t> committed =
      storage::EpochStore(std::getenv(yadokari::parameters::kCkptDir)).committed_epochs();
  if (!committed.empty()) memory::remove_open_journal(dir.c_str(), 0, committed.front());
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
