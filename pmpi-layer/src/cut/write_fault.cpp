#include "pmpi-layer/src/cut/write_fault.hpp"

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include "common/parameters.hpp"

namespace yadokari::shim {

void pause_in_image_write(std::uint64_t epoch) {
  const char* spec = std::getenv(yadokari::parameters::kFaultSlowWrite);
  if (!spec || !*spec) return;
  char* colon = nullptr;
  const unsigned long long wanted = std::strtoull(spec, &colon, 10);
  if (!colon || *colon != ':' || wanted != epoch) return;
  const long ms = std::strtol(colon + 1, nullptr, 10);
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

void kill_writer_if_asked(int logical_rank, unsigned earlier_images) {
  const char* spec = std::getenv(yadokari::parameters::kFaultKillWriter);
  if (!spec || !*spec || earlier_images != 0) return;
  if (std::strtol(spec, nullptr, 10) == logical_rank) ::raise(SIGKILL);
}

}  // namespace yadokari::shim
