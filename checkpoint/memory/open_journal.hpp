#pragma once
// The open journal: files the application opened for writing *without truncating them* after a
// checkpoint (checkpoint/memory/README.md, "Files appended to after the checkpoint"). A file that
// was not open at the checkpoint is unknown to the image, so what a failed incarnation appended to
// it (`fopen(path, "a")` at every write, a common logging pattern) would stay, and the restarted
// run would append it again. So, once the embedding library says a checkpoint's cut was passed
// (start_open_journal), the first open of each path for writing without O_TRUNC in application
// context durably records (generation, path, size at the open) before the descriptor is handed
// out; a restart from epoch E reads the records of generations >= E and cuts each file back to
// the smallest size recorded for it (journal_cut_target).
//
// On disk: one file per generation, `<dir>/<generation>` (decimal), of records appended and
// synced one by one; a record cut short by a crash (its process never got the descriptor) ends
// the file's readable records. Old generations are removed with remove_open_journal.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace yadokari::memory {

struct JournalRecord {
  std::uint64_t generation;
  std::uint64_t size;  // the file's size when it was opened (0 when the open created it)
  std::string path;    // absolute
};

// Distinct paths remembered per generation (a fixed table in .bss). Past it every open of a path
// not remembered is journaled again (a record and a sync each time): never a record lost.
inline constexpr int kJournalPaths = 4096;

// One record, encoded: a 32-byte head (magic, path length, generation, size, check) and the path.
inline constexpr std::size_t kJournalHead = 32;
inline constexpr std::size_t kJournalPathMax = 4095;
// Returns the record's length, 0 when the path is empty or longer than kJournalPathMax or
// `capacity` is too small.
std::size_t encode_journal_record(std::uint64_t generation, std::uint64_t size, const char* path, char* out,
                                  std::size_t capacity);
// Every intact record of `data`, in order, up to the first one that is cut short or damaged.
std::vector<JournalRecord> decode_journal_records(const char* data, std::size_t length);

// Library context (it may allocate): from now on opens in application context are journaled into
// `dir` (created if missing, with its parents) as `generation`; a generation other than the
// current one starts with no path remembered. False with the reason in `why` (then nothing is
// journaled until a later call succeeds).
bool start_open_journal(const char* dir, std::uint64_t generation, std::string& why);
// No more journaling in this process (the files stay).
void stop_open_journal();

// The records of every generation >= `from` in `dir` (a missing directory has none), one per
// path with the smallest size recorded for it, sorted by path. False with the reason when a
// journal file exists but cannot be read.
bool read_open_journal(const char* dir, std::uint64_t from, std::vector<JournalRecord>& out, std::string& why);

// Removes the journal files of generations in [from, to) from `dir` (nothing when it is missing).
void remove_open_journal(const char* dir, std::uint64_t from, std::uint64_t to);

// What one rank cuts a journaled file back to. With a size at the checkpoint (some rank had the
// file open then; the largest of theirs) that one wins, but a rank never cuts below the size it
// saw itself at its first open after the cut: the ranks that had the file open cut it to the
// checkpoint's size anyway (cuts only shorten, so the file ends at the smallest target), and a
// file of the same path on another node's disk must not be cut below what this rank found.
inline std::uint64_t journal_cut_target(bool at_checkpoint, std::uint64_t at_checkpoint_largest,
                                        std::uint64_t journal_smallest) {
  if (!at_checkpoint) return journal_smallest;
  return at_checkpoint_largest > journal_smallest ? at_checkpoint_largest : journal_smallest;
}

}  // namespace yadokari::memory
