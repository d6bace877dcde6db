#pragma once
// One automatic restart, phase by phase (issue: "every phase is timed and logged"):
//   detect   last heartbeat of the lost node -> the verdict
//   checkpoint  an asked-for restart (rebalance, migrate, a draining node): the request -> its
//            epoch committed (shown only for those)
//   stop     every remaining process of the job killed
//   plan     epoch chosen (images verified) and placement computed
//   stage    images made available where the ranks will run (shared directory: nothing to copy)
//   launch   launcher started -> every rank registered, minus the library's MPI_Init
//   MPI_Init the slowest rank's time in the library's MPI_Init
//   restore  the slowest rank's shim-state + memory restore
#include <cstdint>
#include <optional>
#include <string>

namespace yadokari::frontend {

struct RestartTimeline {
  int number = 0;     // 1, 2, ...
  std::string cause;  // "node n2 lost"
  std::uint64_t epoch = 0;
  std::string placement;               // "policy balanced, ranks moved: 2,3"
  std::optional<double> detect_s;      // unset: nothing was detected (a rebalance)
  std::optional<double> settle_s;      // unset: nothing to settle (a rebalance)
  std::optional<double> checkpoint_s;  // an asked-for restart's checkpoint; unset: not one
  double stop_s = 0, plan_s = 0, stage_s = 0;
  std::optional<double> launch_s, init_s, restore_s;  // unset until the ranks got there
};

// "restart 1 (node n2 lost): detect 0.612 s, settle 0.245 s, stop 0.103 s, plan 0.020 s, stage 0.000 s,
// launch 0.504 s, MPI_Init 0.310 s, restore 0.012 s; epoch 3; policy balanced, ranks moved: 2,3"
// settle: the other nodes heard from (or lost) before anything is planned. An asked-for restart
// shows its checkpoint after settle: "restart 2 (migrate ranks 2,3 to n3): detect -, settle -,
// checkpoint 0.412 s, stop ...".
// Phases not reached yet (or without meaning, such as a rebalance's detect) show "-".
std::string timeline_line(const RestartTimeline& timeline);

}  // namespace yadokari::frontend
