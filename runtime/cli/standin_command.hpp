#pragma once
// `yadokari stand-in --dir DIR`: started by a launch in place of a rank whose process never exited
// (a live move, docs/flows/migrate.md "Live moves"). It hands the kept process what the launcher
// gave it (protocol/launcher_handoff.hpp), waits, and exits with the kept process's status.
#include <string>

namespace yadokari::cli {

struct StandInOptions {
  std::string dir;         // where kept processes listen: DIR/rank-R.sock
  double timeout = 120.0;  // seconds to wait for the kept process's socket
};

// The exit status of the kept process; 1 with one line on stderr if there is none.
int stand_in(const StandInOptions& options);

}  // namespace yadokari::cli
