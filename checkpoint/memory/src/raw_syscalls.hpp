#pragma once
// syscall() is interposed (syscall_routing.cpp): an application that opens or closes its files with
// `syscall(SYS_open, …)` goes through the fd table like one that calls open(). The layer's own raw
// calls of those numbers (which must go around the fd table) use real_syscall instead.

namespace yadokari::memory {

// libc's syscall(): -1 and errno on failure.
long real_syscall(long number, long a1 = 0, long a2 = 0, long a3 = 0, long a4 = 0, long a5 = 0, long a6 = 0);

}  // namespace yadokari::memory
