#include "pmpi-layer/src/cut/image_progress.hpp"

namespace yadokari::shim::image_progress {

std::atomic<std::uint64_t> g_writing_epoch{0};
std::atomic<std::uint64_t>* g_bytes = nullptr;

}  // namespace yadokari::shim::image_progress
