#include "pmpi-layer/src/cut/cut_protocol.hpp"

#include "pmpi-layer/src/cut/background_image.hpp"  // rank_released
#include "pmpi-layer/src/core/asymmetric_fence.hpp"
#include "pmpi-layer/src/cut/lifecycle.hpp"
#include "protocol/codec.hpp"
#include "checkpoint/memory/memory.h"
#include "pmpi-layer/src/shim/slow_path.hpp"
#include "pmpi-layer/src/link/control_link.hpp"
#include "pmpi-layer/src/objects/virtual_handles.hpp"
#include "pmpi-layer/src/objects/world.hpp"
#include "pmpi-layer/src/telemetry/call_counters.hpp"  // g_current_call

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace yadokari::shim {
namespace {

namespace ctl = yadokari::protocol;

CheckpointTaker g_take_checkpoint = nullptr;  // set_checkpoint_taker()
MoveSwapper g_swap_for_move = nullptr;        // set_move_swapper()

// What the control thread learnt about the cut in progress. Guarded by `mutex`; the
// application thread waits on `changed` while it is stopped.
struct CutView {
  std::mutex mutex;
  std::condition_variable changed;
  bool active = false;
  std::uint64_t epoch = 0;
  std::string epoch_dir;
  int compression = 0;
  std::uint64_t round = 0;
  std::unordered_map<std::uint64_t, std::uint64_t> targets;
  bool go = false;
  bool resumed = false;
  // The last epoch whose CheckpointResume arrived. A rank that wrote its image waits for its own
  // epoch's resume by number: `resumed` belongs to the cut in progress, and the next epoch's
  // prepare (which may come before this thread wakes up) clears it.
  std::uint64_t resumed_epoch = 0;
  // A live move keeps this rank: SwapLibrary's directory for the epoch held at its commit.
  std::string swap_dir;
  bool swap_leave = false;
};
CutView g_view;

std::atomic<std::uint64_t> g_serial{0};
// The collective the application thread is inside (0: none) and its entered count including
// it, so that the control thread can answer for a rank blocked in the library.
std::atomic<std::uint64_t> g_inside_key{0};
std::atomic<std::uint64_t> g_inside_entered{0};

// The application thread's half of the handshake with on_message(): publish "inside", then look
// at the request flag. The control thread stores the flag, then looks at "inside"; one of the two
// always sees the other. The fence between is the light one (core/asymmetric_fence.hpp): every
// collective passes here, a cut's start only pays the heavy one.
bool enter_and_look(std::uint64_t key, std::uint64_t entered) {
  g_inside_entered.store(entered, std::memory_order_relaxed);
  g_inside_key.store(key, std::memory_order_release);  // the control thread reads entered after key
  light_fence();
  return g_cut_requested.load(std::memory_order_relaxed);
}

// Set before the library's MPI_Finalize: a rank in there cannot take part in a cut any more.
std::atomic<bool> g_finalizing{false};

// The collectives entered on every communicator, freed ones included (object_state.hpp,
// FreedCutCount): a member that has not entered one of those yet is behind.
std::vector<ctl::CommCount> entered_counts() {
  std::vector<ctl::CommCount> counts;
  registry<CommK>().table.for_each([&](std::uint32_t, CommK::entry& e) {
    if (e.record.cut_key != 0) counts.push_back({e.record.cut_key, e.record.collectives_entered});
  });
  for (const FreedCutCount& freed : g_freed_cut_counts) counts.push_back({freed.key, freed.entered});
  return counts;
}

std::uint64_t target_of(const CutView& v, const ctl::CommCount& c) {
  auto it = v.targets.find(c.key);
  return it == v.targets.end() ? c.entered : it->second;
}

bool at_targets(const CutView& v, const std::vector<ctl::CommCount>& counts) {
  for (const auto& c : counts)
    if (c.entered != target_of(v, c)) return false;
  return true;
}

// The round in which this rank last told the coordinator that it runs on past a boundary.
std::uint64_t g_told_running_round = UINT64_MAX;

void report(const CutView& v, ctl::CutState state, std::uint64_t gate_key, std::vector<ctl::CommCount> counts) {
  ctl::CutReport r;
  r.epoch = v.epoch;
  r.logical_rank = identity().logical_rank;
  r.state = state;
  r.round = v.round;
  r.gate_key = gate_key;
  r.serial = ++g_serial;
  r.counts = std::move(counts);
  send_to_coordinator(r);
}

// Runs on the control thread.
void on_message(const ctl::Message& m) {
  std::lock_guard<std::mutex> lock(g_view.mutex);
  if (const auto* p = std::get_if<ctl::CheckpointPrepare>(&m)) {
    g_view.active = true;
    g_view.epoch = p->epoch;
    g_view.epoch_dir = p->epoch_dir;
    g_view.compression = p->compression;
    g_view.round = 0;
    g_view.targets.clear();
    g_view.go = false;
    g_view.resumed = false;
    g_cut_requested.store(true, std::memory_order_seq_cst);
    set_slow_path(kSlowCutRequested, true);  // the wrappers' fast path skips the boundary check
    heavy_fence();                           // the other half of enter_and_look()
    // A rank blocked inside a collective (or in MPI_Finalize) cannot answer itself.
    if (g_finalizing.load(std::memory_order_seq_cst))
      report(g_view, ctl::CutState::finalizing, 0, {});
    else if (const std::uint64_t key = g_inside_key.load(std::memory_order_acquire))
      report(g_view, ctl::CutState::inside, key, {{key, g_inside_entered.load(std::memory_order_relaxed)}});
    else  // computing: it answers itself at its next call boundary; say that it is alive
      report(g_view, ctl::CutState::unreached, 0, {});
  } else if (const auto* t = std::get_if<ctl::CutTargets>(&m)) {
    if (!g_view.active || t->epoch != g_view.epoch || t->round <= g_view.round) return;
    g_view.round = t->round;
    for (const auto& c : t->targets) g_view.targets[c.key] = c.entered;
  } else if (const auto* g = std::get_if<ctl::CutGo>(&m)) {
    if (g_view.active && g->epoch == g_view.epoch) g_view.go = true;
  } else if (const auto* r = std::get_if<ctl::CheckpointResume>(&m)) {
    if (g_view.active && r->epoch == g_view.epoch) g_view.resumed = true;
    if (r->epoch > g_view.resumed_epoch) g_view.resumed_epoch = r->epoch;
  } else if (const auto* w = std::get_if<ctl::SwapLibrary>(&m)) {
    if (g_view.active && w->epoch == g_view.epoch) {
      g_view.swap_dir = w->dir;
      g_view.swap_leave = w->leave;
    }
  } else if (const auto* r = std::get_if<ctl::CheckpointRelease>(&m)) {
    if (!r->run_on) {
      // The job ends at this epoch's commit: the image is reported, the rank stays where it is
      // (the commit brings no resume; a failed epoch's resume lets it run on).
      if (g_view.active && r->epoch == g_view.epoch) background_image::rank_released();
      return;
    }
    // Every rank is captured, images are still being written: for this rank the cut is over.
    if (g_view.active && r->epoch == g_view.epoch) g_view.resumed = true;
    if (r->epoch > g_view.resumed_epoch) g_view.resumed_epoch = r->epoch;
  }
  g_view.changed.notify_all();
}

void end_cut(std::unique_lock<std::mutex>&) {
  g_view.active = false;
  g_view.go = false;
  g_view.resumed = false;
  g_cut_requested.store(false, std::memory_order_seq_cst);
  set_slow_path(kSlowCutRequested, false);
}

enum class Stop { run_on, done };
enum class Step { wait, run_on, done, take };

// One look at the cut from a boundary, under the view's lock; reports a new state to the
// coordinator. Kept apart from stop_here() so that no heap-owning local lives across the
// checkpoint there: after a restart those would point into the old process's heap.
Step evaluate(MPI_Comm gate, bool finalizing, ctl::CutState& last_state, std::uint64_t& last_round) {
  if (!g_view.active) return Step::done;
  if (g_view.resumed) return Step::done;  // abandoned before this rank took part
  std::vector<ctl::CommCount> counts = entered_counts();
  ctl::CutState state;
  std::uint64_t gate_key = 0;
  if (finalizing) {
    state = ctl::CutState::finalizing;
  } else if (g_view.round == 0) {
    state = ctl::CutState::unreached;
  } else if (at_targets(g_view, counts)) {
    state = ctl::CutState::parked;
  } else {
    CommK::entry* e = gate == MPI_COMM_NULL ? nullptr : find_entry<CommK>(gate);
    const bool may_enter =
        !e || e->record.cut_key == 0 ||
        e->record.collectives_entered < target_of(g_view, {e->record.cut_key, e->record.collectives_entered});
    if (may_enter) {
      // Running on, said once a round. A rank already past some target (it finished a collective
      // others have not entered, e.g. the root of a broadcast) must say so, or the others would
      // park short of it while it waits for them in a receive; a rank behind one (on its way to a
      // collective the others have left) must too, or its report of an earlier round (parked)
      // would stand for it and the cut would look stalled.
      if (g_told_running_round != g_view.round) {
        g_told_running_round = g_view.round;
        report(g_view, ctl::CutState::unreached, 0, std::move(counts));
      }
      return Step::run_on;
    }
    const ctl::CommCount mine{e->record.cut_key, e->record.collectives_entered};
    state = ctl::CutState::at_gate;
    gate_key = mine.key;
  }
  if (state == ctl::CutState::parked && g_view.go) return Step::take;
  if (state != last_state || g_view.round != last_round) {
    report(g_view, state, gate_key, std::move(counts));
    last_state = state;
    last_round = g_view.round;
  }
  return Step::wait;
}

// The application thread stops here while the cut needs it to. `gate` is the communicator of
// the collective about to be entered (MPI_COMM_NULL at other boundaries).
Stop stop_here(MPI_Comm gate, bool finalizing) {
  // The MPI call this thread stopped in, kept in this frame (the application's stack, carried by
  // the image): a restarted process resumes below with its own MPI_Init's value in
  // g_current_call (that scope never ends there), and MPICH's finalize help
  // (shim/mpich_ucx_finalize.cpp) starts only inside MPI_Finalize.
  const Fn stopped_in = g_current_call.load(std::memory_order_relaxed);
  ctl::CutState last_state = ctl::CutState::unreached;
  std::uint64_t last_round = UINT64_MAX;
  for (;;) {
    std::unique_lock<std::mutex> lock(g_view.mutex);
    const Step step = evaluate(gate, finalizing, last_state, last_round);
    if (step == Step::run_on) return Stop::run_on;
    if (step == Step::done) {
      if (g_view.active) end_cut(lock);
      return Stop::done;
    }
    if (step == Step::take) {
      const CheckpointTarget target{g_view.epoch, g_view.compression};
      lock.unlock();
      // Every member of a freed communicator is parked at its count now: no later cut needs it.
      g_freed_cut_counts.clear();
      if (!g_take_checkpoint) {  // the composition root installs it before enabling checkpoints
        std::fprintf(stderr, "yadokari: internal error: no checkpoint taker installed\n");
        std::abort();
      }
      if (g_take_checkpoint(target) == CheckpointOutcome::restarted) {
        g_current_call.store(stopped_in, std::memory_order_relaxed);
        return Stop::done;
      }
      lock.lock();
      const std::uint64_t epoch = target.epoch;
      g_view.changed.wait(
          lock, [epoch] { return g_view.resumed_epoch >= epoch || !g_view.active || !g_view.swap_dir.empty(); });
      background_image::rank_released();
      if (!g_view.swap_dir.empty() && g_swap_for_move) {
        // Held at the commit for a live move: a kept rank leaves the job here and comes back in
        // the next launch, where the moved ranks restore this same cut (a moved one never returns).
        const std::string dir = std::move(g_view.swap_dir);
        const bool leave = g_view.swap_leave;
        g_view.swap_dir.clear();
        lock.unlock();
        g_swap_for_move(epoch, dir.c_str(), leave);
        g_current_call.store(stopped_in, std::memory_order_relaxed);
        lock.lock();
        if (g_view.active && g_view.epoch == epoch) end_cut(lock);
        return Stop::done;
      }
      // The next epoch's prepare may already be here: that cut is not this one to end; this
      // thread takes part in it at its next boundary.
      if (g_view.active && g_view.epoch == epoch) end_cut(lock);
      return Stop::done;
    }
    g_view.changed.wait_for(lock, std::chrono::milliseconds(50));
  }
}

}  // namespace

void cut::on_init() {
  (void)enable_asymmetric_fence();  // before the listener: no cut can start before it is known
  set_control_listener(on_message);
}

void cut_boundary() { (void)stop_here(MPI_COMM_NULL, false); }

void collective_gate(MPI_Comm comm) {
  CommK::entry* e = find_entry<CommK>(comm);
  if (!e) return;  // MPI_COMM_NULL or garbage: the library reports it
  if (e->record.cut_key != 0) {
    if (enter_and_look(e->record.cut_key, e->record.collectives_entered + 1)) {
      g_inside_key.store(0, std::memory_order_seq_cst);
      (void)stop_here(comm, false);
      e = find_entry<CommK>(comm);  // the tables may be another process's now (restart)
      g_inside_entered.store(e->record.collectives_entered + 1, std::memory_order_seq_cst);
      g_inside_key.store(e->record.cut_key, std::memory_order_seq_cst);
    }
  }
  ++e->record.collectives_entered;
}

void collective_done() { g_inside_key.store(0, std::memory_order_relaxed); }

void cut::on_finalize() {
  g_finalizing.store(true, std::memory_order_seq_cst);
  if (g_cut_requested.load(std::memory_order_seq_cst)) (void)stop_here(MPI_COMM_NULL, true);
  // A background image's report goes over the control link, which MPI_Finalize closes next.
  background_image::wait_for_report();
}

void checkpoint_requested_by_app() {
  if (!g_interruptible) return;
  ctl::CheckpointAsk ask;
  ask.logical_rank = identity().logical_rank;
  send_to_coordinator(ask);
  // Wait for the coordinator's prepare, then take part in the cut from here.
  {
    std::unique_lock<std::mutex> lock(g_view.mutex);
    g_view.changed.wait_for(lock, std::chrono::seconds(30), [] { return g_view.active; });
  }
  if (g_cut_requested.load(std::memory_order_seq_cst)) (void)stop_here(MPI_COMM_NULL, false);
}

void set_checkpoint_taker(CheckpointTaker taker) { g_take_checkpoint = taker; }
void set_move_swapper(MoveSwapper swapper) { g_swap_for_move = swapper; }

bool current_epoch_dir(char* out, std::size_t size) {
  std::lock_guard<std::mutex> lock(g_view.mutex);
  if (g_view.epoch_dir.size() + 1 > size) return false;
  std::memcpy(out, g_view.epoch_dir.c_str(), g_view.epoch_dir.size() + 1);
  return true;
}

}  // namespace yadokari::shim

// The application API (pmpi-layer/api/yadokari.h): under the shim these replace the no-ops.
extern "C" __attribute__((visibility("default"))) int yadokari_checkpoint(void) {
  yk_mem_enter_library();
  yadokari::shim::checkpoint_requested_by_app();
  yk_mem_leave_library();
  return 0;
}
extern "C" __attribute__((visibility("default"))) void yadokari_checkpoint_(void) { (void)yadokari_checkpoint(); }
