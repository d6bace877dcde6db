// How far the image being written in the background has come (cut/background_image.hpp writes
// it, the rank's status answer reads it): apart from both so neither depends on the other.
#pragma once

#include <atomic>
#include <cstdint>

namespace yadokari::shim::image_progress {

// The epoch whose image a writer is writing (0: none).
extern std::atomic<std::uint64_t> g_writing_epoch;
// Bytes handed to the image so far; lives in a page shared with the writer process (null until
// the first background image).
extern std::atomic<std::uint64_t>* g_bytes;

inline std::uint64_t writing_epoch() { return g_writing_epoch.load(std::memory_order_relaxed); }
inline std::uint64_t writing_bytes() {
  return writing_epoch() != 0 && g_bytes ? g_bytes->load(std::memory_order_relaxed) : 0;
}

}  // namespace yadokari::shim::image_progress
