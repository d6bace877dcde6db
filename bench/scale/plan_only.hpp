#pragma once
// `scale_harness --plan-only`: the restart planning alone, without sockets. The same inputs the
// full run gives the planner after its node loss (block placement, one epoch of the traffic
// pattern, 1 s of compute per rank, the middle node dead), built directly, so that planning can be
// timed at every size in seconds instead of the many minutes 17,408 CURVE connections take.
#include "bench/scale/scale_options.hpp"

namespace yadokari::bench::scale {

// Prints one line per policy and a RESULT line; returns the exit status.
int run_plan_only(const ScaleOptions& options);

}  // namespace yadokari::bench::scale
