// The composition of a swap of the MPI library in a running process (docs/flows/migrate.md, "Live
// moves: the kept ranks swap their MPI library"): the process leaves its MPI job and becomes a rank
// of a new launch with the same pid and memory. In the order the concerns need it:
//   the consistent cut, as for a checkpoint (drained messages, records)  cut/drain.hpp
//   a fresh copy of the library loaded (not yet used)                      swap/library_copy.hpp
//   the shim's state kept as bytes, the library's requests given back      cut/shim_state.hpp
//   the library's MPI_Finalize; then wait for the new launch's stand-in    swap/kept_process.hpp
//   its variables and streams taken                                        swap/kept_process.hpp
//   the process's links pointed at the copy                                 swap/relocation_rebind.hpp
//   the copy's MPI_Init; the virtual world on it                           objects/lifecycle.hpp
//   the state loaded back, the objects re-created, receives re-posted      as a restart does
// Until the library is finalized a refusal leaves the job as it was; after it, a failure ends the
// process with one line (and its stand-in with the status).
#include "checkpoint/memory/memory.h"
#include "pmpi-layer/src/cut/drain.hpp"
#include "pmpi-layer/src/cut/replay.hpp"
#include "pmpi-layer/src/cut/shim_state.hpp"
#include "pmpi-layer/src/link/lifecycle.hpp"
#include "pmpi-layer/src/objects/lifecycle.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/objects/world.hpp"
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"
#include "pmpi-layer/src/swap/kept_process.hpp"
#include "pmpi-layer/src/swap/library_copy.hpp"
#include "pmpi-layer/src/swap/relocation_rebind.hpp"
#include "pmpi-layer/src/swap/swap_record.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "common/parameters.hpp"
#include "protocol/launcher_handoff.hpp"

namespace yadokari::shim {
namespace {

constexpr double kStandInTimeout = 600.0;  // a new launch that never comes ends the kept process

int refuse(const std::string& why) {
  print_line("yadokari: rank %d cannot swap its MPI library: %s", identity().logical_rank, why.c_str());
  return MPI_ERR_OTHER;
}

[[noreturn]] void fail(const std::string& why) {
  print_line("yadokari: rank %d lost its MPI library in a swap: %s", identity().logical_rank, why.c_str());
  swap::end_with(1);
}

// For the driver of a test: the kept process is between launches, its pid in DIR/rank-L.pid.
void say_waiting(const std::string& dir, int rank) {
  const std::string path = dir + "/rank-" + std::to_string(rank) + ".pid";
  if (FILE* f = std::fopen((path + ".tmp").c_str(), "w")) {
    std::fprintf(f, "%d\n", static_cast<int>(getpid()));
    std::fclose(f);
    std::rename((path + ".tmp").c_str(), path.c_str());
  }
}

// Seconds since the previous call (the phases of swap::SwapPhases, one after the other).
class PhaseClock {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

int swap_library() {
  const char* dir = std::getenv(yadokari::parameters::kSwapDir);
  if (!dir || !*dir) return refuse(std::string(yadokari::parameters::kSwapDir) + " is not set");
  // The control thread of a job with a front end calls into the library; moving it across is not built.
  if (link::up()) return refuse("the job has a front end; a live swap is only built for jobs without one");
  const int rank = identity().logical_rank;
  PhaseClock clock;
  swap::SwapPhases phases;
  consistent_cut();
  std::string why;
  if (!shim_state_checkpointable(&why)) return refuse(why);
  // Loaded while the job is whole, so that a process without a link namespace left (glibc has 16,
  // fewer where static TLS runs out first) refuses here instead of losing its library.
  PhaseClock load_clock;
  void* copy = swap::load_next_copy(why);
  if (!copy) return refuse(why);
  const double load_seconds = load_clock.lap();
  const int listener = swap::listen_for_stand_in(protocol::handoff_socket_path(dir, rank), why);
  if (listener < 0) {
    dlclose(copy);
    return refuse(why);
  }
  const std::string state = save_shim_state();
  if (!drop_library_requests()) fail("a receive pending at the cut was matched after it");
  phases.load = load_seconds;
  phases.cut = clock.lap() - load_seconds;
  PMPI_Finalize();
  phases.finalize = clock.lap();
  say_waiting(dir, rank);

  const std::optional<protocol::Handoff> launch = swap::wait_for_stand_in(listener, kStandInTimeout, why);
  ::close(listener);
  if (!launch) fail(why);
  swap::take_launch(*launch);
  swap::share_environment(copy);
  phases.wait_launch = clock.lap();
  if (!swap::bind_to_copy(copy, why)) fail(why);
  phases.bind = clock.lap();
  int provided = 0;
  if (PMPI_Init_thread(nullptr, nullptr, identity().thread_level, &provided) != MPI_SUCCESS)
    fail("MPI_Init of the new copy failed");
  if (const std::string wrong = objects::on_library_swapped(); !wrong.empty()) fail(wrong);
  phases.init = clock.lap();
  try {
    forget_shim_state();
    load_shim_state(state);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  replay_creation_log();
  repost_pending_receives();
  reattach_buffer();
  phases.objects = clock.lap();
  swap::g_last_swap = phases;
  ++swap::g_library_swaps;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace yadokari::shim

// Collective over the virtual world, at a point where every rank calls it (a test's hook until a
// live move drives it). Returns MPI_SUCCESS in the new launch, or an error with one line on stderr
// and the job untouched.
extern "C" YK_API int yadokari_swap_library(void) {
  yk_mem_enter_library();
  const int rc = yadokari::shim::swap_library();
  yk_mem_leave_library();
  return rc;
}
