#include "telemetry/lifecycle.hpp"

#include "telemetry/compute_sampler.hpp"
#include "telemetry/stats_writer.hpp"

namespace yk::telemetry {

void on_init(bool link_up) {
  if (link_up) start_compute_sampler();
}

void on_finalize() {
  write_stats_if_requested();
  stop_compute_sampler();
}

}  // namespace yk::telemetry
