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
// process with one line (and its stand-in with the status). Two callers: yadokari_swap_library()
// (a test's hook, in a job without a front end) and a live move's SwapLibrary (swap_for_move),
// where the cut is the committed checkpoint's and the next launch's restored ranks are the peers.
#include "pmpi-layer/src/shim/library_swap.hpp"

#include "checkpoint/memory/memory.h"
#include "pmpi-layer/src/cut/cut_protocol.hpp"
#include "pmpi-layer/src/cut/drain.hpp"
#include "pmpi-layer/src/cut/lifecycle.hpp"
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
#include "pmpi-layer/src/telemetry/lifecycle.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
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

// DIR/rank-<L>.<suffix>, written whole (renamed into place).
void write_beside(const std::string& dir, int rank, const char* suffix, const std::string& text) {
  const std::string path = dir + "/rank-" + std::to_string(rank) + "." + suffix;
  if (FILE* f = std::fopen((path + ".tmp").c_str(), "w")) {
    std::fprintf(f, "%s\n", text.c_str());
    std::fclose(f);
    std::rename((path + ".tmp").c_str(), path.c_str());
  }
}

// For whoever drives the swap: the kept process is between launches, its pid in DIR/rank-L.pid.
void say_waiting(const std::string& dir, int rank) {
  write_beside(dir, rank, "pid", std::to_string(static_cast<int>(getpid())));
}

void write_refusal(const std::string& dir, int rank, const std::string& why) {
  write_beside(dir, rank, "refused", why);
}

// Points the process's stdout and stderr at /dev/null, without flushing: what the application had
// buffered at the cut is in the image, and its restored twin writes it.
void silence_output() {
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0) return;
  ::dup2(null, STDOUT_FILENO);
  ::dup2(null, STDERR_FILENO);
  ::close(null);
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

// What both kinds of swap prepare while the job is whole: the copy, the socket for the stand-in,
// the shim's state as bytes. Nothing on refusal (`why` says why; the job is as it was).
struct Prepared {
  void* copy = nullptr;
  int listener = -1;
  std::string state;
};

std::optional<Prepared> prepare(const char* dir, int rank, swap::SwapPhases& phases, std::string& why) {
  // Loaded while the job is whole, so that a process without a link namespace left (glibc has 16,
  // fewer where static TLS runs out first) refuses here instead of losing its library.
  PhaseClock load_clock;
  Prepared p;
  p.copy = swap::load_next_copy(why);
  if (!p.copy) return std::nullopt;
  phases.load = load_clock.lap();
  p.listener = swap::listen_for_stand_in(protocol::handoff_socket_path(dir, rank), why);
  if (p.listener < 0) {
    dlclose(p.copy);
    return std::nullopt;
  }
  p.state = save_shim_state();
  if (!drop_library_requests()) fail("a receive pending at the cut was matched after it");
  return p;
}

// After the library's MPI_Finalize: wait for the next launch's stand-in, take what it hands over,
// move onto the copy and initialize it. Ends the process on failure.
void move_onto_copy(const char* dir, int rank, Prepared& p, swap::SwapPhases& phases, PhaseClock& clock) {
  say_waiting(dir, rank);
  std::string why;
  const std::optional<protocol::Handoff> launch = swap::wait_for_stand_in(p.listener, kStandInTimeout, why);
  ::close(p.listener);
  if (!launch) fail(why);
  swap::take_launch(*launch);
  swap::share_environment(p.copy);
  phases.wait_launch = clock.lap();
  if (!swap::bind_to_copy(p.copy, why)) fail(why);
  phases.bind = clock.lap();
  int provided = 0;
  if (PMPI_Init_thread(nullptr, nullptr, identity().thread_level, &provided) != MPI_SUCCESS)
    fail("MPI_Init of the new copy failed");
  if (const std::string wrong = objects::on_library_swapped(); !wrong.empty()) fail(wrong);
  // The library's clock starts afresh in the copy; the application's continues from the cut's.
  telemetry::on_restart();
  phases.init = clock.lap();
}

void load_state_back(const std::string& state) {
  try {
    forget_shim_state();
    load_shim_state(state);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  replay_creation_log();
}

void count(const swap::SwapPhases& phases) {
  swap::g_last_swap = phases;
  ++swap::g_library_swaps;
}

int swap_library() {
  const char* dir = std::getenv(yadokari::parameters::kSwapDir);
  if (!dir || !*dir) return refuse(std::string(yadokari::parameters::kSwapDir) + " is not set");
  // With a front end the swap is a live move's (swap_for_move): the front end starts the next launch.
  if (link::up()) return refuse("the job has a front end; a live move is asked for with `yadokari migrate --live`");
  const int rank = identity().logical_rank;
  PhaseClock clock;
  swap::SwapPhases phases;
  consistent_cut();
  std::string why;
  if (!shim_state_checkpointable(&why)) return refuse(why);
  std::optional<Prepared> prepared = prepare(dir, rank, phases, why);
  if (!prepared) return refuse(why);
  phases.cut = clock.lap() - phases.load;
  telemetry::on_checkpoint();  // MPI_Wtime's value, which the copy's clock continues from
  PMPI_Finalize();
  phases.finalize = clock.lap();
  move_onto_copy(dir, rank, *prepared, phases, clock);
  load_state_back(prepared->state);
  repost_pending_receives();
  reattach_buffer();
  phases.objects = clock.lap();
  count(phases);
  return MPI_SUCCESS;
}

// A kept rank of a live move, held at the committed cut of `epoch` (cut_protocol.cpp). Its state
// is the one the moved ranks restore: it leaves the job, and in the next launch makes the same
// agreements they make (objects re-created, cut::on_rejoined). If it cannot, it says why in
// DIR/rank-<L>.refused, for the front end to restart the whole job instead, and stays held.
void swap_for_move(std::uint64_t epoch, const char* dir, bool leave) {
  const auto left = std::chrono::steady_clock::now();
  const int rank = identity().logical_rank;
  if (leave) {  // a new process restores this rank elsewhere; the kept ones need its MPI_Finalize
    // Its twin writes this rank's output from the cut on: what the library says here about the
    // requests its finalize finds (UCX's "was not returned to mpool") would be extra output.
    silence_output();
    link::on_finalize();
    PMPI_Finalize();
    for (;;) ::pause();  // the front end stops this launch
  }
  PhaseClock clock;
  swap::SwapPhases phases;
  std::string why;
  std::optional<Prepared> prepared = prepare(dir, rank, phases, why);
  if (!prepared) {
    print_line("yadokari: rank %d cannot swap its MPI library: %s", rank, why.c_str());
    write_refusal(dir, rank, why);
    for (;;) ::pause();  // the front end stops this launch
  }
  phases.cut = clock.lap() - phases.load;
  link::on_finalize();  // the control thread goes before the library; the next launch's link replaces it
  PMPI_Finalize();
  phases.finalize = clock.lap();
  move_onto_copy(dir, rank, *prepared, phases, clock);
  cut::enable_checkpoints(true);  // what it learnt of the library, learnt again from the copy
  link::on_init();
  load_state_back(prepared->state);
  cut::on_rejoined(epoch, left);
  phases.objects = clock.lap();
  count(phases);
}

}  // namespace
}  // namespace yadokari::shim

// Collective over the virtual world, at a point where every rank calls it (a test's hook until a
// live move drives it). Returns MPI_SUCCESS in the new launch, or an error with one line on stderr
// and the job untouched.
namespace yadokari::shim {
void install_move_swapper() { set_move_swapper(&swap_for_move); }
}  // namespace yadokari::shim

extern "C" YK_API int yadokari_swap_library(void) {
  yk_mem_enter_library();
  const int rc = yadokari::shim::swap_library();
  yk_mem_leave_library();
  return rc;
}
