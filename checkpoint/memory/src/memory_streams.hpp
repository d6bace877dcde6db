#pragma once
// The application's stdio streams that have no descriptor — fmemopen, open_memstream,
// open_wmemstream, fopencookie — across a restart (checkpoint/memory/README.md, "The
// application's process state"). Their FILE structs and buffers are in the arena and come back
// with it, but glibc's list of open streams is the fresh process's: without them on it,
// fflush(NULL) (which updates an open_memstream's size and buffer pointer) and exit() skip them.
// The capture notes every stream of the list that lives in the arena and has no descriptor (the
// streams with one are the fd table's) and the process's pointer guard; the replay puts them back
// on the list. A cookie stream (fopencookie, and fmemopen, which glibc builds on it) keeps its four
// functions mangled with the pointer guard, which differs in the restarted process: they are
// mangled again with the new one (before, the first flush after a restart jumped to garbage).
#include <cstdint>

namespace yadokari::memory {

inline constexpr std::uint32_t kMaxMemoryStreams = 32;

// Into `out` (at most kMaxMemoryStreams); returns how many there are (more: refused by the check).
std::uint32_t list_memory_streams(std::uint64_t* out, std::uint32_t cap);

// This process's pointer guard (glibc's PTR_MANGLE key, in the thread control block).
std::uint64_t pointer_guard();

// In the restarted process, once the memory is back; `old_guard` is the capturing process's.
void relink_memory_streams(const std::uint64_t* streams, std::uint32_t count, std::uint64_t old_guard);

}  // namespace yadokari::memory
