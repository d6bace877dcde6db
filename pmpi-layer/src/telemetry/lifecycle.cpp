#include "pmpi-layer/src/telemetry/lifecycle.hpp"

#include "pmpi-layer/src/telemetry/compute_sampler.hpp"
#include "pmpi-layer/src/telemetry/stats_writer.hpp"

namespace yadokari::shim::telemetry {

void on_init(bool link_up) {
  if (link_up) start_compute_sampler();
}

void on_finalize() {
  write_stats_if_requested();
  stop_compute_sampler();
}

}  // namespace yadokari::shim::telemetry
