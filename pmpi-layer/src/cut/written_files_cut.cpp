// The restarted ranks' files cut back together: see written_files_cut.hpp.
#include "pmpi-layer/src/cut/written_files_cut.hpp"

#include <mpi.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "checkpoint/memory/open_journal.hpp"
#include "checkpoint/memory/overwrite_journal.hpp"
#include "checkpoint/memory/written_files.hpp"
#include "pmpi-layer/src/cut/open_journal_steps.hpp"

namespace yadokari::shim::cut {
namespace {

std::uint64_t path_key(const char* path) { return XXH64(path, std::strlen(path), 0); }

}  // namespace

bool cut_back_written_files(std::uint64_t epoch, std::string& why) {
  const std::vector<memory::WrittenFile> files = memory::files_written_at_checkpoint();
  // This rank's own journal: files it opened for writing after the cut of `epoch` or a later one
  // (in any incarnation since), each with the smallest size it found at such an open.
  const std::string journal_dir = open_journal_dir();
  std::vector<memory::JournalRecord> journaled;
  // Unreadable: this rank cuts nothing but still takes part in the collectives below.
  bool ok = journal_dir.empty() || memory::read_open_journal(journal_dir.c_str(), epoch, journaled, why);
  // Bytes the failed run overwrote inside what the files held are put back first, each rank its
  // own, before any rank cuts (after the gather below): a copy reaching past a later cut would
  // lengthen the file again.
  if (ok && !journal_dir.empty()) ok = memory::undo_overwrites(journal_dir.c_str(), epoch, why);
  // Pairs (key of the path, size), every rank's, in rank order.
  std::vector<std::uint64_t> mine;
  for (const memory::WrittenFile& f : files) {
    mine.push_back(path_key(f.path));
    mine.push_back(f.size);
  }
  int ranks = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<int> counts(static_cast<std::size_t>(ranks));
  const int count = static_cast<int>(mine.size());
  PMPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> starts(counts.size());
  int total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) starts[i] = std::exchange(total, total + counts[i]);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(total));
  PMPI_Allgatherv(mine.data(), count, MPI_UINT64_T, all.data(), counts.data(), starts.data(), MPI_UINT64_T,
                  MPI_COMM_WORLD);
  // Paths only matter for the files this rank has; another node's file of the same path, on its
  // own disk, can only make the size larger, which cuts less, never more than any rank had.
  std::unordered_map<std::uint64_t, std::uint64_t> largest;
  for (std::size_t i = 0; i + 1 < all.size(); i += 2) largest[all[i]] = std::max(largest[all[i]], all[i + 1]);
  std::unordered_set<std::uint64_t> open_at_checkpoint;
  for (const memory::WrittenFile& f : files) {
    open_at_checkpoint.insert(path_key(f.path));
    if (ok && !memory::cut_back(f.path, largest[path_key(f.path)], why)) ok = false;
  }
  // A journaled file no rank of ours had open at the checkpoint: the size at the checkpoint
  // (another rank's) wins when there is one, never below what this rank saw (journal_cut_target).
  // A file that is gone is left gone.
  for (const memory::JournalRecord& r : journaled) {
    const std::uint64_t key = path_key(r.path.c_str());
    if (!ok || open_at_checkpoint.count(key)) continue;
    const auto at = largest.find(key);
    const std::uint64_t target =
        memory::journal_cut_target(at != largest.end(), at != largest.end() ? at->second : 0, r.size);
    if (!memory::cut_back_if_present(r.path.c_str(), target, why)) ok = false;
  }
  // Cut: the journal's records have done their work. The incarnation that follows journals
  // afresh from this epoch; records of later generations belong to the run that failed.
  if (ok && !journal_dir.empty())
    memory::remove_open_journal(journal_dir.c_str(), epoch, std::numeric_limits<std::uint64_t>::max());
  // Also when this rank failed: the others must not wait for it in a collective it never joins.
  PMPI_Barrier(MPI_COMM_WORLD);
  return ok;
}

}  // namespace yadokari::shim::cut
