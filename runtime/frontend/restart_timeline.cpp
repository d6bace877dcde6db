#include "runtime/frontend/restart_timeline.hpp"

#include <fmt/format.h>

namespace yadokari::frontend {
namespace {

std::string phase(const char* name, std::optional<double> seconds) {
  return seconds ? fmt::format("{} {:.3f} s", name, *seconds) : fmt::format("{} -", name);
}

}  // namespace

std::string timeline_line(const RestartTimeline& t) {
  const std::string checkpoint = t.checkpoint_s ? phase("checkpoint", t.checkpoint_s) + ", " : std::string();
  return fmt::format("restart {} ({}): {}, {}, {}{}, {}, {}, {}, {}, {}; epoch {}; {}", t.number, t.cause,
                     phase("detect", t.detect_s), phase("settle", t.settle_s), checkpoint, phase("stop", t.stop_s),
                     phase("plan", t.plan_s), phase("stage", t.stage_s), phase("launch", t.launch_s),
                     phase("MPI_Init", t.init_s), phase("restore", t.restore_s), t.epoch, t.placement);
}

}  // namespace yadokari::frontend
