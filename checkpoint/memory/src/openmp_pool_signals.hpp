#pragma once
// The signal state of the OpenMP runtime's idle pool threads (checkpoint/memory/README.md, "The
// application's process state"). A restarted process gets a new pool, whose threads inherit the
// mask of the thread that creates them; the application's code in a parallel region may have
// changed a pool thread's mask since (blocking a signal on every thread of a team, say). So the
// capture reads each pool thread's mask (/proc/self/task/<tid>/status, SigBlk) in the order the
// runtime created the threads, and the restarted process gives the masks, in that order, to the
// pool threads its runtime creates. A signal waiting for a pool thread (blocked there) has no
// thread to wait for after a restart: refused (threads.cpp).
#include <cstdint>

namespace yadokari::memory {

inline constexpr std::uint32_t kMaxPoolThreads = 256;  // as many as the thread table tracks

// Their masks (bit sig-1), oldest thread first: the first `cap` into `out`; returns how many.
std::uint32_t openmp_pool_masks(std::uint64_t* out, std::uint32_t cap);

// In the restarted process: the next pool threads the runtime creates take these masks.
void expect_openmp_pool_masks(const std::uint64_t* masks, std::uint32_t count);

// Called on a new pool thread before it runs the runtime's code.
void take_openmp_pool_mask();

// Whether the calling thread is one of the pool's (thread_keys.cpp: a value it keeps would not
// come back with the new pool).
bool on_openmp_pool_thread();

}  // namespace yadokari::memory
