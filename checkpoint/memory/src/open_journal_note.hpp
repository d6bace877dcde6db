#pragma once
// The fd table's side of open_journal.hpp.
namespace yadokari::memory {

// A descriptor the application just opened with `flags` (open's, or what fopen's mode means), in
// application context, before it is handed out: journaled when the journal is on, the file is
// regular, opened for writing and not truncated, and its path is not journaled yet in this
// generation. Raw system calls and fixed buffers only; keeps errno.
void journal_open(int fd, int flags);

}  // namespace yadokari::memory
