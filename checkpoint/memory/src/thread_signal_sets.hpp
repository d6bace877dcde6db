#pragma once
// A thread's signal sets as the kernel shows them in its /proc status file (bit sig-1): the
// signals waiting in its own queue (SigPnd), in the process's (ShdPnd), and its mask (SigBlk).
// Read with raw system calls, so the descriptor is never one the fd table adopts.
#include <cstdint>

namespace yadokari::memory {

struct ThreadSignalSets {
  std::uint64_t pending = 0, shared_pending = 0, blocked = 0;
};

// `path`: "/proc/thread-self/status" or "/proc/self/task/<tid>/status". False (errno set) if it
// cannot be read or lacks the fields.
bool read_thread_signal_sets(const char* path, ThreadSignalSets& out);

}  // namespace yadokari::memory
