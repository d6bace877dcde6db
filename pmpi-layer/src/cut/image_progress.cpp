#include "cut/image_progress.hpp"

namespace yk::image_progress {

std::atomic<std::uint64_t> g_writing_epoch{0};
std::atomic<std::uint64_t>* g_bytes = nullptr;

}  // namespace yk::image_progress
