#pragma once
// The regular files the application had open for writing at the checkpoint a process was restored
// from, and cutting them back to their size then (checkpoint/memory/README.md, "Files written
// after the checkpoint"). The failed incarnation may have written past the checkpoint; the
// restarted one writes the same again from the checkpoint's offset, but where it writes fewer
// bytes (a line with a time in it, one digit shorter) the rest of the old tail would stay in the
// file. The restore itself only lists the files: a file several ranks write is cut once every rank
// knows every rank's size (the largest wins), before any of them writes again.
#include <cstdint>
#include <string>
#include <vector>

namespace yadokari::memory {

struct WrittenFile {
  const char* path;    // absolute; in the layer's restore state, valid for the process's life
  std::uint64_t size;  // the file's size at the checkpoint (after the stdio flush)
};

// In a process whose restore returned into the application: each file it had open for writing
// at the checkpoint (a descriptor opened O_WRONLY or O_RDWR, or a shared mapping of one), once
// per path with the largest size any of them recorded. Empty in a process that was not restored.
std::vector<WrittenFile> files_written_at_checkpoint();

// Cuts `path` back to `size` when it is longer now (nothing when it is not), looking at its size
// and cutting under an exclusive flock, so that ranks cutting one file to different sizes at once
// never lengthen it again. False with the reason in `why` when it cannot.
bool cut_back(const char* path, std::uint64_t size, std::string& why);
// The same for a file that may be gone (a journaled one, open_journal.hpp): nothing then.
bool cut_back_if_present(const char* path, std::uint64_t size, std::string& why);

}  // namespace yadokari::memory
