#pragma once
// The overwrite journal: bytes a run overwrites *inside* what its files held at the checkpoint
// (checkpoint/memory/README.md, "Files overwritten after the checkpoint"). The cut back to the
// checkpoint's size (written_files.hpp) and the open journal (open_journal.hpp) undo what a failed
// run appended; a file updated in place (a record read, changed and written back, a header
// rewritten, a status line rewound and rewritten) would keep the failed run's bytes, and the
// restarted run would read them as if they were the checkpoint's. So, while the open journal is on,
// before the application writes below the size a file had when the generation started, the bytes
// about to be overwritten are appended to `<dir>/<generation>.pre` and synced. A restart from
// epoch E puts back the bytes of every generation >= E, newest first, before it cuts the files.
//
// A range longer than kOverwriteKeepMax is not copied: its checksum is kept instead, and the
// restart verifies it and refuses with the reason when the bytes differ (never a silent change).
//
// On disk, per record: a 48-byte head (magic, kind, path length, generation, offset, length), the
// path, the payload (the bytes, or their XXH64), then an XXH64 of all of it; a record cut short
// by a crash (its writer never went on to overwrite anything) ends the file's readable records.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace yadokari::memory {

inline constexpr std::uint64_t kOverwriteKeepMax = std::uint64_t{64} << 20;
// `<dir>/<generation>` is the open journal's file of a generation, this one's is that name + it.
inline constexpr char kOverwriteJournalSuffix[] = ".pre";

struct OverwriteRecord {
  enum Kind : std::uint32_t { kBytes = 1, kChecksum = 2 };
  Kind kind;
  std::uint64_t generation;
  std::uint64_t offset, length;
  std::string path;     // absolute
  std::string bytes;    // kBytes: the `length` bytes as they were
  std::uint64_t check;  // kChecksum: XXH64 of them
};

// Every intact record of `data`, in order, up to the first one that is cut short or damaged.
std::vector<OverwriteRecord> decode_overwrite_records(const char* data, std::size_t length);

// The journal's writer follows the open journal: start_open_journal and stop_open_journal start
// and stop it, in the same directory and generation. Keeps the bytes [offset, offset + length) of
// the file open on `fd` (named `path`) as they are now. False when the record could not be
// written (said once per generation: a restart may then keep what is written over them).
bool keep_before_overwrite(int fd, const char* path, std::uint64_t offset, std::uint64_t length);

// At a restart from epoch `from`: puts back the kept bytes of every generation >= `from` in `dir`
// (newest first, each generation's records last to first, so the oldest copy of a byte wins) and
// verifies the checksummed ranges. A file that is gone stays gone. False with one line in `why`
// when a file cannot be written or a checksummed range differs.
bool undo_overwrites(const char* dir, std::uint64_t from, std::string& why);

// After a generation started, what the application may overwrite next without calling anything
// the layer sees is kept now: the bytes from their position on of stdio streams positioned below
// their file's size, and the file bytes under its writable shared file mappings. Called by
// whoever starts a generation, in library context.
void keep_ahead_of_unseen_writes();

}  // namespace yadokari::memory
