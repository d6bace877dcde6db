// CheckpointOrchestrator on its own: events in, broadcasts and epoch ends out, epochs on disk.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>

#include "runtime/control/checkpoint_orchestrator.hpp"
#include "checkpoint/image/image_writer.hpp"
#include "checkpoint/storage/epoch_store.hpp"

using namespace yadokari::control;
using namespace yadokari::protocol;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("yk-orch-" + std::to_string(getpid()) + "-" + std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

struct Harness {
  TempDir dir;
  std::vector<std::string> log;
  CheckpointOrchestrator orchestrator;
  explicit Harness(int world = 2, unsigned keep = 2, fs::path node_dir = {},
                   std::function<bool(std::uint64_t)> job_ends_at_commit = {})
      : orchestrator(OrchestratorConfig{dir.path, "yk-test", "openmpi", world, keep, 0, std::move(node_dir),
                                        std::move(job_ends_at_commit)},
                     [this](const std::string& line) { log.push_back(line); }) {}

  yadokari::storage::EpochStore store() const { return yadokari::storage::EpochStore(dir.path); }
};

CutReport report(std::uint64_t epoch, int rank, CutState state, std::uint64_t round, std::uint64_t serial,
                 std::vector<CommCount> counts, std::uint64_t gate = 0) {
  CutReport r;
  r.epoch = epoch;
  r.logical_rank = rank;
  r.state = state;
  r.round = round;
  r.serial = serial;
  r.counts = std::move(counts);
  r.gate_key = gate;
  return r;
}

template <class T>
const T* only(const OrchestratorStep& step) {
  if (step.broadcast.size() != 1) return nullptr;
  return std::get_if<T>(&step.broadcast[0]);
}

std::vector<CommCount> targets_of(const OrchestratorStep& step) {
  const auto* targets = only<CutTargets>(step);
  return targets ? targets->targets : std::vector<CommCount>{{999, 999}};
}

// What a rank does on CutGo: its image in the epoch directory, then ImageWritten.
ImageWritten write_image(const fs::path& epoch_dir, std::uint64_t epoch, int rank, std::size_t size = 100) {
  const fs::path path = epoch_dir / ("rank-" + std::to_string(rank) + ".img");
  std::ofstream(path) << std::string(size, 'x');
  ImageWritten w;
  w.epoch = epoch;
  w.logical_rank = rank;
  w.ok = true;
  w.path = path.string();
  w.size = size;
  w.xxh64 = 0x1234;
  return w;
}

// Runs one epoch in which every rank parks at once with `counts`; `adjust` edits what each rank
// reports with its image (traffic, compute time); returns the last step.
OrchestratorStep run_simple_epoch(Harness& h, int world, bool fail_rank_1 = false,
                                  const std::function<void(ImageWritten&)>& adjust = {}) {
  const auto start = h.orchestrator.start();
  const auto* prepare = only<CheckpointPrepare>(start);
  REQUIRE(prepare);
  const std::uint64_t epoch = prepare->epoch;
  for (int r = 0; r < world; ++r) h.orchestrator.on_cut_report(report(epoch, r, CutState::unreached, 0, 1, {{1, 4}}));
  for (int r = 0; r < world; ++r) {
    const auto step = h.orchestrator.on_cut_report(report(epoch, r, CutState::parked, 1, 2, {{1, 4}}));
    if (r == world - 1) REQUIRE(only<CutGo>(step));
  }
  OrchestratorStep last;
  fs::create_directories(prepare->epoch_dir);  // node-local storage: the ranks make it
  for (int r = 0; r < world; ++r) {
    auto w = write_image(prepare->epoch_dir, epoch, r);
    if (adjust) adjust(w);
    if (fail_rank_1 && r == 1) {
      w.ok = false;
      w.error = "No space left on device";
    }
    last = h.orchestrator.on_image_written(w);
  }
  return last;
}

}  // namespace

TEST_CASE("all ranks parked at the targets: GO, then MANIFEST and resume", "[checkpoint]") {
  Harness h;
  const auto start = h.orchestrator.start();
  const auto* prepare = only<CheckpointPrepare>(start);
  REQUIRE(prepare);
  CHECK(prepare->epoch == 1);
  CHECK(prepare->epoch_dir == (h.dir.path / "1").string());
  CHECK(fs::is_directory(prepare->epoch_dir));
  CHECK(h.orchestrator.start().broadcast.empty());  // a second request merges

  // Nothing until every rank has reported.
  CHECK(h.orchestrator.on_cut_report(report(1, 0, CutState::unreached, 0, 1, {{1, 3}})).broadcast.empty());
  const auto targets = h.orchestrator.on_cut_report(report(1, 1, CutState::unreached, 0, 1, {{1, 3}}));
  REQUIRE(only<CutTargets>(targets));
  CHECK(only<CutTargets>(targets)->round == 1);
  CHECK(targets_of(targets) == std::vector<CommCount>{{1, 3}});

  CHECK(h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 1, 2, {{1, 3}})).broadcast.empty());
  const auto go = h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 1, 2, {{1, 3}}));
  REQUIRE(only<CutGo>(go));

  CHECK(h.orchestrator.on_image_written(write_image(prepare->epoch_dir, 1, 0)).broadcast.empty());
  const auto done = h.orchestrator.on_image_written(write_image(prepare->epoch_dir, 1, 1));
  REQUIRE(only<CheckpointResume>(done));
  CHECK(only<CheckpointResume>(done)->committed);
  REQUIRE(done.ended);
  CHECK(done.ended->committed);
  CHECK(done.ended->message == "epoch 1 committed");
  const auto manifest = h.store().read_manifest(1);
  REQUIRE(manifest);
  CHECK(manifest->images.size() == 2);
  CHECK(manifest->images[1].file == "rank-1.img");
  CHECK(manifest->images[1].xxh64 == 0x1234);
  CHECK(manifest->job_id == "yk-test");
  CHECK_FALSE(h.orchestrator.in_progress());
  CHECK(h.log.empty());
}

TEST_CASE("a rank inside a collective raises the target of that communicator", "[checkpoint]") {
  Harness h;
  h.orchestrator.start();
  h.orchestrator.on_cut_report(report(1, 0, CutState::unreached, 0, 1, {{1, 5}, {7, 2}}));
  // Rank 1 is blocked inside its 6th collective on the world.
  const auto first = h.orchestrator.on_cut_report(report(1, 1, CutState::inside, 0, 1, {{1, 6}}, 1));
  CHECK(targets_of(first) == std::vector<CommCount>{{1, 6}, {7, 2}});
  // Rank 0 parks at the targets; rank 1 is still inside: no GO yet.
  CHECK(h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 1, 2, {{1, 6}, {7, 2}})).broadcast.empty());
  const auto go = h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 1, 2, {{1, 6}, {7, 2}}));
  CHECK(only<CutGo>(go));
}

TEST_CASE("a rank blocked at a gate while behind elsewhere gets one more collective", "[checkpoint]") {
  Harness h(3);
  h.orchestrator.start();
  // Communicator 9 holds ranks 1 and 2. Rank 0 and 1 are at 4 world collectives, rank 2 at 3.
  h.orchestrator.on_cut_report(report(1, 0, CutState::unreached, 0, 1, {{1, 4}}));
  h.orchestrator.on_cut_report(report(1, 1, CutState::unreached, 0, 1, {{1, 4}, {9, 2}}));
  const auto round1 = h.orchestrator.on_cut_report(report(1, 2, CutState::unreached, 0, 1, {{1, 3}, {9, 2}}));
  CHECK(targets_of(round1) == std::vector<CommCount>{{1, 4}, {9, 2}});
  // Rank 2 must enter a collective on 9 before its 4th world collective: at the gate of 9.
  h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 1, 2, {{1, 4}}));
  h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 1, 2, {{1, 4}, {9, 2}}));
  const auto round2 = h.orchestrator.on_cut_report(report(1, 2, CutState::at_gate, 1, 2, {{1, 3}, {9, 2}}, 9));
  REQUIRE(only<CutTargets>(round2));
  CHECK(only<CutTargets>(round2)->round == 2);
  CHECK(targets_of(round2) == std::vector<CommCount>{{1, 4}, {9, 3}});
  // The same report again (a stale serial) changes nothing.
  CHECK(h.orchestrator.on_cut_report(report(1, 2, CutState::at_gate, 1, 2, {{1, 3}, {9, 2}}, 9)).broadcast.empty());
  // Everyone parks at round 2's targets.
  h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 2, 3, {{1, 4}}));
  h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 2, 3, {{1, 4}, {9, 3}}));
  CHECK(only<CutGo>(h.orchestrator.on_cut_report(report(1, 2, CutState::parked, 2, 3, {{1, 4}, {9, 3}}))));
  CHECK(h.orchestrator.targets() == std::map<std::uint64_t, std::uint64_t>{{1, 4}, {9, 3}});
}

TEST_CASE("parked at an older round is not enough for GO", "[checkpoint]") {
  Harness h;
  h.orchestrator.start();
  h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 0, 1, {{1, 2}}));
  CHECK(only<CutTargets>(h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 0, 1, {{1, 2}}))));
  // Both parked with the right counts, but against round 0.
  CHECK(h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 0, 2, {{1, 2}})).broadcast.empty());
  CHECK(h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 1, 2, {{1, 2}})).broadcast.empty());
  CHECK(only<CutGo>(h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 1, 3, {{1, 2}}))));
}

// The orchestrator counts the ranks parked at the targets report by report (a pass over every
// rank per report is O(N^2) per round at scale): a rank that parked and then reports something
// else must leave that count.
TEST_CASE("a rank parked at the targets that reports again no longer counts as parked", "[checkpoint]") {
  Harness h(3);
  h.orchestrator.start();
  for (int rank = 0; rank < 2; ++rank) h.orchestrator.on_cut_report(report(1, rank, CutState::parked, 0, 1, {{1, 2}}));
  REQUIRE(only<CutTargets>(h.orchestrator.on_cut_report(report(1, 2, CutState::parked, 0, 1, {{1, 2}}))));
  CHECK(h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 1, 2, {{1, 2}})).broadcast.empty());
  CHECK(h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 1, 2, {{1, 2}})).broadcast.empty());
  // A later report of rank 1 that is not parked (as if blocked inside the world's collective it
  // already counted: no new target): rank 1 no longer counts as parked.
  CHECK(h.orchestrator.on_cut_report(report(1, 1, CutState::inside, 1, 3, {{1, 2}}, 1)).broadcast.empty());
  CHECK(h.orchestrator.on_cut_report(report(1, 2, CutState::parked, 1, 2, {{1, 2}})).broadcast.empty());
  // Parked again: now every rank is.
  CHECK(only<CutGo>(h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 1, 4, {{1, 2}}))));
}

TEST_CASE("reports are ordered by serial, other epochs are ignored", "[checkpoint]") {
  Harness h;
  h.orchestrator.start();
  h.orchestrator.on_cut_report(report(1, 0, CutState::unreached, 0, 5, {{1, 2}}));
  h.orchestrator.on_cut_report(report(1, 1, CutState::unreached, 0, 5, {{1, 2}}));
  // A report of another epoch, and an older one that arrives late, do not count.
  CHECK(h.orchestrator.on_cut_report(report(7, 0, CutState::inside, 0, 9, {{1, 9}}, 1)).broadcast.empty());
  CHECK(h.orchestrator.on_cut_report(report(1, 0, CutState::inside, 0, 4, {{1, 9}}, 1)).broadcast.empty());
  CHECK(h.orchestrator.targets() == std::map<std::uint64_t, std::uint64_t>{{1, 2}});
  h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 1, 6, {{1, 2}}));
  CHECK(only<CutGo>(h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 1, 6, {{1, 2}}))));
}

TEST_CASE("targets never decrease within an epoch", "[checkpoint]") {
  Harness h;
  h.orchestrator.start();
  h.orchestrator.on_cut_report(report(1, 0, CutState::unreached, 0, 1, {{1, 2}}));
  CHECK(targets_of(h.orchestrator.on_cut_report(report(1, 1, CutState::inside, 0, 1, {{1, 3}}, 1))) ==
        std::vector<CommCount>{{1, 3}});
  // Rank 1's newer report says 2 (it cannot go backwards, but the rule must hold anyway).
  CHECK(h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 1, 2, {{1, 2}})).broadcast.empty());
  CHECK(h.orchestrator.targets() == std::map<std::uint64_t, std::uint64_t>{{1, 3}});
}

TEST_CASE("a rank reaching MPI_Finalize abandons the epoch", "[checkpoint]") {
  Harness h;
  const auto start = h.orchestrator.start();
  const auto dir = only<CheckpointPrepare>(start)->epoch_dir;
  h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 0, 1, {{1, 2}}));
  const auto step = h.orchestrator.on_cut_report(report(1, 1, CutState::finalizing, 0, 1, {{1, 2}}));
  REQUIRE(only<CheckpointResume>(step));
  CHECK_FALSE(only<CheckpointResume>(step)->committed);
  REQUIRE(step.ended);
  CHECK_FALSE(step.ended->committed);
  CHECK(h.log == std::vector<std::string>{"yadokari: checkpoint epoch 1 abandoned: rank 1 reached MPI_Finalize"});
  CHECK_FALSE(fs::exists(dir));
  CHECK_FALSE(h.orchestrator.in_progress());
  // The next epoch starts, under a new number although the directory of 1 is gone.
  const auto next = h.orchestrator.start();
  REQUIRE(only<CheckpointPrepare>(next));
  CHECK(only<CheckpointPrepare>(next)->epoch == 2);
}

TEST_CASE("a failed image keeps the previous epoch and the job goes on", "[checkpoint]") {
  Harness h;
  REQUIRE(run_simple_epoch(h, 2).ended->committed);
  const auto failed = run_simple_epoch(h, 2, true);
  REQUIRE(only<CheckpointResume>(failed));
  CHECK_FALSE(only<CheckpointResume>(failed)->committed);
  REQUIRE(failed.ended);
  CHECK(failed.ended->epoch == 2);
  CHECK(failed.ended->message ==
        "checkpoint epoch 2 failed on rank 1: No space left on device; the last committed epoch is "
        "1");
  CHECK(h.log.back() == "yadokari: " + failed.ended->message);
  CHECK_FALSE(fs::exists(h.dir.path / "2"));
  CHECK(h.store().committed_epochs() == std::vector<std::uint64_t>{1});
  // The next epoch does not reuse the failed one's number (its captured ranks journal files as
  // generation 2 already) and commits.
  const auto next = run_simple_epoch(h, 2);
  CHECK(next.ended->committed);
  CHECK(next.ended->epoch == 3);
  CHECK(h.store().committed_epochs() == std::vector<std::uint64_t>{1, 3});
}

TEST_CASE("a refused checkpoint: one line per problem, the last committed epoch once", "[checkpoint]") {
  Harness h;
  const auto failed = run_simple_epoch(h, 2, false, [](ImageWritten& w) {
    if (w.logical_rank != 0) return;
    w.ok = false;
    w.error =
        "descriptor 7 is a socket, which is not carried\n"
        "thread 4242 (started at worker in /bin/app) is running application code, which is not carried";
  });
  REQUIRE(only<CheckpointResume>(failed));
  CHECK_FALSE(only<CheckpointResume>(failed)->committed);
  REQUIRE(failed.ended);
  CHECK(failed.ended->message ==
        "checkpoint epoch 1 failed on rank 0: descriptor 7 is a socket, which is not carried\n"
        "checkpoint epoch 1 failed on rank 0: thread 4242 (started at worker in /bin/app) is running application "
        "code, which is not carried; no epoch is committed yet");
  CHECK(h.log == std::vector<std::string>{
                     "yadokari: checkpoint epoch 1 failed on rank 0: descriptor 7 is a socket, which is not carried",
                     "yadokari: checkpoint epoch 1 failed on rank 0: thread 4242 (started at worker in /bin/app) is "
                     "running application code, which is not carried; no epoch is committed yet"});
  CHECK_FALSE(fs::exists(h.dir.path / "1"));
  CHECK(h.store().committed_epochs().empty());
}

// A real (empty) image in place of write_image's stand-in: retention reads the images' headers to
// find the epochs an increment needs, and keeps everything older than an image it cannot read.
static void make_real_image(ImageWritten& w) {
  yadokari::image::ImageHeader header;
  header.job_id = "yk-test";
  header.rank = static_cast<std::uint32_t>(w.logical_rank);
  header.world_size = 2;
  header.epoch = w.epoch;
  header.flavour = "openmpi";
  fs::remove(w.path);
  const auto written = yadokari::image::ImageWriter(w.path, header).finish();
  w.size = written.size;
  w.xxh64 = written.xxh64;
}

TEST_CASE("committing prunes to the last `keep` epochs", "[checkpoint]") {
  Harness h(2, 2);
  for (int i = 0; i < 4; ++i) REQUIRE(run_simple_epoch(h, 2, false, make_real_image).ended->committed);
  CHECK(h.store().committed_epochs() == std::vector<std::uint64_t>{3, 4});
  CHECK(h.store().all_epochs() == std::vector<std::uint64_t>{3, 4});
}

TEST_CASE("an image whose size does not match fails the epoch without a MANIFEST", "[checkpoint]") {
  Harness h;
  const auto start = h.orchestrator.start();
  const auto dir = only<CheckpointPrepare>(start)->epoch_dir;
  h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 0, 1, {{1, 1}}));
  h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 0, 1, {{1, 1}}));
  h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 1, 2, {{1, 1}}));
  REQUIRE(only<CutGo>(h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 1, 2, {{1, 1}}))));
  h.orchestrator.on_image_written(write_image(dir, 1, 0));
  auto lying = write_image(dir, 1, 1);
  lying.size = 5;
  const auto step = h.orchestrator.on_image_written(lying);
  REQUIRE(step.ended);
  CHECK_FALSE(step.ended->committed);
  CHECK(step.ended->message.rfind("checkpoint epoch 1 failed: cannot commit epoch 1: ", 0) == 0);
  CHECK(step.ended->message.find("; no epoch is committed yet") != std::string::npos);
  CHECK(h.store().committed_epochs().empty());
}

TEST_CASE("a rank silent after the prepare abandons the epoch, not once all reported", "[checkpoint]") {
  Harness h(3);
  h.orchestrator.start();
  CHECK(h.orchestrator.abandon_if_unreported(10).ended);  // nobody reported
  CHECK(h.log.back() ==
        "yadokari: checkpoint epoch 1 abandoned: rank 0 did not answer within 10 s (it may have "
        "reached MPI_Finalize)");
  h.orchestrator.start();  // epoch 2: the number of the abandoned one is not used again
  for (int r = 0; r < 3; ++r) h.orchestrator.on_cut_report(report(2, r, CutState::unreached, 0, 1, {{1, 1}}));
  CHECK(h.orchestrator.abandon_if_unreported(10).broadcast.empty());
  CHECK(h.orchestrator.in_progress());
}

TEST_CASE("a cut in which every rank waits and nobody reports is abandoned (a running rank keeps it open)",
          "[checkpoint]") {
  Harness h(2);
  h.orchestrator.start();
  h.orchestrator.on_cut_report(report(1, 0, CutState::unreached, 0, 1, {{1, 5}}));
  CHECK(targets_of(h.orchestrator.on_cut_report(report(1, 1, CutState::unreached, 0, 1, {{1, 5}}))) ==
        std::vector<CommCount>{{1, 5}});
  h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 1, 2, {{1, 5}}));
  // Rank 1 still runs: however quiet, the cut waits for it.
  CHECK(h.orchestrator.abandon_if_stalled(600).broadcast.empty());
  CHECK(h.orchestrator.in_progress());
  // Now blocked inside a collective the others have not entered: round 2 asks rank 0 for one more.
  CHECK(targets_of(h.orchestrator.on_cut_report(report(1, 1, CutState::inside, 1, 2, {{1, 6}}, 1))) ==
        std::vector<CommCount>{{1, 6}});
  const auto step = h.orchestrator.abandon_if_stalled(10);
  REQUIRE(step.ended);
  CHECK_FALSE(step.ended->committed);
  CHECK(step.ended->message ==
        "checkpoint epoch 1 abandoned: the cut stalled (no rank moved for 10 s, round 2): rank 0 parked (as of "
        "round 1), communicator 1 at 5 of 6; rank 1 inside a collective on communicator 1 (as of round 1)");
  CHECK(h.log.back() == "yadokari: " + step.ended->message);
  REQUIRE(only<CheckpointResume>(step));
  CHECK_FALSE(only<CheckpointResume>(step)->committed);
  CHECK_FALSE(fs::exists(h.store().epoch_dir(1)));
  CHECK_FALSE(h.orchestrator.in_progress());
}

// The shim's side of this (cut_protocol.cpp): a rank that freed a communicator still reports how many
// collectives it entered on it, and a rank behind those runs on and says so once a round.
TEST_CASE("a count reported for a freed communicator holds back a rank short of it that runs on and keeps the cut open",
          "[checkpoint]") {
  Harness h(2);
  h.orchestrator.start();
  // Rank 1 reduced onto rank 0 over communicator 7 and freed it; rank 0 has not entered it yet.
  h.orchestrator.on_cut_report(report(1, 0, CutState::unreached, 0, 1, {}));
  const auto round1 = h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 0, 1, {{1, 2}, {7, 1}}));
  CHECK(targets_of(round1) == std::vector<CommCount>{{1, 2}, {7, 1}});
  // Rank 0 at a boundary, short of communicator 7's target: it runs on, and says so.
  CHECK(h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 1, 2, {{1, 2}, {7, 1}})).broadcast.empty());
  CHECK(h.orchestrator.on_cut_report(report(1, 0, CutState::unreached, 1, 2, {{1, 2}, {7, 0}})).broadcast.empty());
  CHECK(h.orchestrator.abandon_if_stalled(600).broadcast.empty());
  CHECK(h.orchestrator.waiting_for_running(10) ==
        "checkpoint epoch 1 is waiting for rank 0, at MPI calls but short of collectives other ranks have entered "
        "(no rank moved for 10 s, round 1): rank 0 running, communicator 7 at 0 of 1; rank 1 parked");
  // Past the reduction, it parks: GO.
  CHECK(only<CutGo>(h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 1, 3, {{1, 2}, {7, 1}}))));
}

TEST_CASE("only the cut can stall: once GO is sent, a quiet epoch is left to finish", "[checkpoint]") {
  Harness h(2);
  h.orchestrator.start();
  for (int r = 0; r < 2; ++r) h.orchestrator.on_cut_report(report(1, r, CutState::unreached, 0, 1, {{1, 4}}));
  h.orchestrator.on_cut_report(report(1, 0, CutState::parked, 1, 2, {{1, 4}}));
  REQUIRE(only<CutGo>(h.orchestrator.on_cut_report(report(1, 1, CutState::parked, 1, 2, {{1, 4}}))));
  CHECK(h.orchestrator.abandon_if_stalled(600).broadcast.empty());
  CHECK(h.orchestrator.in_progress());
}

TEST_CASE("node-local storage: images on the nodes, the epoch commits once every replica is made", "[checkpoint]") {
  TempDir nodes;
  Harness h(2, 2, nodes.path);
  const auto written = run_simple_epoch(h, 2);
  // Every image written: nothing committed yet, both to replicate; the ranks run on meanwhile.
  REQUIRE(only<CheckpointRelease>(written));
  CHECK(only<CheckpointRelease>(written)->epoch == 1);
  CHECK_FALSE(written.ended);
  REQUIRE(written.replicate.size() == 2);
  CHECK(written.replicate[1].rank == 1);
  CHECK(written.replicate[1].size == 100);
  CHECK(written.replicate[1].xxh64 == 0x1234);
  CHECK(fs::exists(nodes.path / "yk-test" / "1" / "rank-0.img"));
  CHECK(h.store().committed_epochs().empty());

  CHECK_FALSE(h.orchestrator.on_replica({0, true, {"n1", "n2"}, {}}).ended);
  const auto done = h.orchestrator.on_replica({1, true, {"n2", "n1"}, {}});
  REQUIRE(done.ended);
  CHECK(done.ended->committed);
  REQUIRE(only<CheckpointResume>(done));
  const auto manifest = h.store().read_manifest(1);
  REQUIRE(manifest);
  CHECK(manifest->images.at(0).nodes == std::vector<std::string>{"n1", "n2"});
  CHECK(manifest->images.at(1).nodes == std::vector<std::string>{"n2", "n1"});
  // Only the agents can reach the images: a restart from the directory says where they are.
  const auto choice = h.store().newest_good_epoch();
  CHECK_FALSE(choice.epoch);
  REQUIRE(choice.skipped.size() == 1);
  CHECK(choice.skipped[0] ==
        "epoch 1: rank-0.img is kept on node-local storage of n1, n2 (--node-dir), not in this directory");
}

TEST_CASE("node-local storage: a failed replica fails the epoch", "[checkpoint]") {
  TempDir nodes;
  Harness h(2, 2, nodes.path);
  run_simple_epoch(h, 2);
  h.orchestrator.on_replica({0, false, {}, "node n2 was lost"});
  const auto done = h.orchestrator.on_replica({1, true, {"n2", "n1"}, {}});
  REQUIRE(done.ended);
  CHECK_FALSE(done.ended->committed);
  CHECK(done.ended->message ==
        "checkpoint epoch 1 failed: replicating rank 0's image: node n2 was lost; no epoch is committed yet");
  CHECK(h.store().committed_epochs().empty());
  CHECK_FALSE(h.orchestrator.in_progress());
}

TEST_CASE("the traffic the ranks report with their images is kept per committed epoch", "[checkpoint]") {
  using Row = std::vector<TrafficPartner>;
  Harness h(2);
  CHECK(h.orchestrator.committed_traffic().empty());
  // Runs an epoch in which rank 0 reports the row `of_0` and rank 1 the row `of_1`, counted since
  // the job started (each rank sends its heaviest partners only).
  const auto epoch_with = [&](const Row& of_0, const Row& of_1) {
    const auto last =
        run_simple_epoch(h, 2, false, [&](ImageWritten& w) { w.traffic = w.logical_rank == 0 ? of_0 : of_1; });
    REQUIRE(last.ended);
    REQUIRE(last.ended->committed);
  };
  epoch_with({{1, 1000, 10}}, {{0, 300, 3}});
  CHECK(h.orchestrator.committed_traffic().rows == std::vector<Row>{{{1, 1000, 10}}, {{0, 300, 3}}});
  // Counters since the start: the epoch's own traffic is the difference; a partner no longer
  // sent to drops out, and rank 1 sent to nobody new.
  epoch_with({{1, 1500, 15}}, {{0, 300, 3}});
  CHECK(h.orchestrator.committed_traffic().rows == std::vector<Row>{{{1, 500, 5}}, {}});
  // Nobody reports a row: the traffic is unknown, not zero.
  epoch_with({}, {});
  CHECK(h.orchestrator.committed_traffic().empty());
}

TEST_CASE("compute seconds per rank are those of the interval ending at the last commit", "[checkpoint]") {
  Harness h(2);
  CHECK_FALSE(h.orchestrator.committed_compute().any());
  // One epoch in which rank 0 on n1 and rank 1 on n2 report what they computed since they
  // started (< 0: rank 1 does not measure); `fail` makes rank 1's image write fail.
  const auto epoch_with = [&](double rank_0, double rank_1, bool fail = false) {
    const auto last = run_simple_epoch(h, 2, fail, [&](ImageWritten& w) {
      w.compute_seconds = w.logical_rank == 0 ? rank_0 : rank_1;
      w.hostname = w.logical_rank == 0 ? "n1" : "n2";
    });
    REQUIRE(last.ended);
    CHECK(last.ended->committed == !fail);
  };
  epoch_with(2.0, 6.0);  // the first commit: since the ranks started
  CHECK(h.orchestrator.committed_compute().epoch == 1);
  CHECK(h.orchestrator.committed_compute().seconds == std::vector<std::optional<double>>{2.0, 6.0});
  CHECK(h.orchestrator.committed_compute().hosts == std::vector<std::string>{"n1", "n2"});
  epoch_with(3.0, 9.5);
  CHECK(h.orchestrator.committed_compute().epoch == 2);
  CHECK(h.orchestrator.committed_compute().seconds == std::vector<std::optional<double>>{1.0, 3.5});
  epoch_with(3.5, 11.0, true);  // not committed: changes nothing
  CHECK(h.orchestrator.committed_compute().epoch == 2);
  CHECK(h.orchestrator.committed_compute().seconds == std::vector<std::optional<double>>{1.0, 3.5});
  epoch_with(4.0, 12.5);  // against the last commit, not the failed epoch
  CHECK(h.orchestrator.committed_compute().epoch > 2);
  CHECK(h.orchestrator.committed_compute().seconds == std::vector<std::optional<double>>{1.0, 3.0});
  epoch_with(4.5, -1.0);  // rank 1 measured nothing
  CHECK(h.orchestrator.committed_compute().seconds == std::vector<std::optional<double>>{0.5, std::nullopt});
  CHECK(h.orchestrator.committed_compute().hosts == std::vector<std::string>{"n1", ""});
}

TEST_CASE("the compute ledger counts afresh when a rank's process or node changed", "[checkpoint]") {
  ComputeLedger ledger(2);
  std::map<std::int32_t, ImageWritten> images;
  images[0].compute_seconds = 5.0;
  images[0].hostname = "n1";
  images[1].compute_seconds = 5.0;
  images[1].hostname = "n2";
  CHECK(ledger.on_commit(1, images).seconds == std::vector<std::optional<double>>{5.0, 5.0});
  // Rank 0 restarted on n3 (a fresh process counts from zero), rank 1's reading went down (a
  // new process on the same node): both whole readings, never a negative difference.
  images[0].compute_seconds = 0.5;
  images[0].hostname = "n3";
  images[1].compute_seconds = 0.25;
  const ComputeTimes times = ledger.on_commit(2, images);
  CHECK(times.seconds == std::vector<std::optional<double>>{0.5, 0.25});
  CHECK(times.hosts == std::vector<std::string>{"n3", "n2"});
  // Out-of-range ranks are ignored.
  images[7].compute_seconds = 1.0;
  CHECK(ledger.on_commit(3, images).seconds.size() == 2);
}

TEST_CASE("an epoch with no compute for some ranks: the totals since each process started", "[compute]") {
  ComputeLedger ledger(2);
  std::map<std::int32_t, ImageWritten> images;
  images[0].compute_seconds = 0.25;
  images[0].hostname = "fast";
  images[1].compute_seconds = 4.0;
  images[1].hostname = "slow";
  CHECK_FALSE(ledger.on_commit(1, images).since_start);
  // Rank 0 waited in MPI for rank 1 the whole next interval: its difference would be 0, and a zero
  // tells nothing about its node's speed. Both ranks' totals are given instead.
  images[1].compute_seconds = 5.0;
  const ComputeTimes times = ledger.on_commit(2, images);
  CHECK(times.since_start);
  CHECK(times.seconds == std::vector<std::optional<double>>{0.25, 5.0});
  // Both computed: the interval's differences again.
  images[0].compute_seconds = 0.5;
  images[1].compute_seconds = 6.0;
  const ComputeTimes next = ledger.on_commit(3, images);
  CHECK_FALSE(next.since_start);
  CHECK(next.seconds == std::vector<std::optional<double>>{0.25, 1.0});
}

TEST_CASE("no epoch number left: the checkpoint fails with the reason, nothing is sent", "[checkpoint]") {
  Harness h;
  fs::create_directories(h.dir.path / "18446744073709551615");
  const auto start = h.orchestrator.start();
  CHECK(start.broadcast.empty());
  REQUIRE(start.ended);
  CHECK_FALSE(start.ended->committed);
  CHECK(start.ended->message == "checkpoint failed: no epoch number is left after 18446744073709551615 in " +
                                    h.dir.path.string() + "; no epoch is committed yet");
  CHECK_FALSE(h.orchestrator.in_progress());
}

TEST_CASE("images written in the background: the ranks are released once all are captured", "[checkpoint]") {
  Harness h(3);
  const auto start = h.orchestrator.start();
  const auto* prepare = only<CheckpointPrepare>(start);
  REQUIRE(prepare);
  for (int r = 0; r < 3; ++r) h.orchestrator.on_cut_report(report(1, r, CutState::unreached, 0, 1, {{1, 2}}));
  for (int r = 0; r < 3; ++r) h.orchestrator.on_cut_report(report(1, r, CutState::parked, 1, 2, {{1, 2}}));
  CHECK_FALSE(h.orchestrator.released());
  // Rank 2 wrote its image itself (an ImageWritten counts as captured); 0 and 1 forked writers.
  CHECK(h.orchestrator.on_image_written(write_image(prepare->epoch_dir, 1, 2)).broadcast.empty());
  CHECK(h.orchestrator.on_image_captured({1, 0, 0.01}).broadcast.empty());
  CHECK(h.orchestrator.on_image_captured({7, 1, 0.01}).broadcast.empty());  // another epoch: ignored
  const auto released = h.orchestrator.on_image_captured({1, 1, 0.01});
  REQUIRE(only<CheckpointRelease>(released));
  CHECK(only<CheckpointRelease>(released)->epoch == 1);
  CHECK(h.orchestrator.released());
  CHECK(h.orchestrator.on_image_captured({1, 1, 0.01}).broadcast.empty());  // released once
  // The epoch goes on until every image is written, then commits as always.
  h.orchestrator.note_cut_seconds(0.75);
  auto w0 = write_image(prepare->epoch_dir, 1, 0);
  w0.pause_seconds = 0.125;
  w0.write_seconds = 2.5;
  CHECK(h.orchestrator.on_image_written(w0).broadcast.empty());
  const auto done = h.orchestrator.on_image_written(write_image(prepare->epoch_dir, 1, 1));
  REQUIRE(only<CheckpointResume>(done));
  REQUIRE(done.ended);
  CHECK(done.ended->committed);
  CHECK_FALSE(h.orchestrator.released());
  const auto manifest = h.store().read_manifest(1);
  REQUIRE(manifest);
  CHECK(manifest->images.at(0).pause_seconds == 0.125);
  CHECK(manifest->images.at(0).write_seconds == 2.5);
  CHECK(manifest->cut_seconds == 0.75);
}

TEST_CASE("an epoch at which the job ends holds its ranks: no run-on release, no resume on commit", "[checkpoint]") {
  // The job stops at epoch 2 (--stop-after-epoch 2): epoch 1 runs on as always.
  Harness h(2, 2, {}, [](std::uint64_t epoch) { return epoch >= 2; });
  auto through_capture = [&h](std::uint64_t epoch) {
    const auto start = h.orchestrator.start();
    const auto* prepare = only<CheckpointPrepare>(start);
    REQUIRE(prepare);
    for (int r = 0; r < 2; ++r) h.orchestrator.on_cut_report(report(epoch, r, CutState::unreached, 0, 1, {{1, 2}}));
    for (int r = 0; r < 2; ++r) h.orchestrator.on_cut_report(report(epoch, r, CutState::parked, 1, 2, {{1, 2}}));
    h.orchestrator.on_image_captured({epoch, 0, 0.01});
    const auto released = h.orchestrator.on_image_captured({epoch, 1, 0.01});
    REQUIRE(only<CheckpointRelease>(released));
    const bool run_on = only<CheckpointRelease>(released)->run_on;
    h.orchestrator.on_image_written(write_image(prepare->epoch_dir, epoch, 0));
    return std::make_pair(run_on, h.orchestrator.on_image_written(write_image(prepare->epoch_dir, epoch, 1)));
  };
  const auto [first_runs_on, first] = through_capture(1);
  CHECK(first_runs_on);
  CHECK(only<CheckpointResume>(first));
  const auto [last_runs_on, last] = through_capture(2);
  CHECK_FALSE(last_runs_on);
  CHECK(last.broadcast.empty());  // the held ranks stay until they are stopped
  REQUIRE(last.ended);
  CHECK(last.ended->committed);
}

TEST_CASE("a held epoch that fails lets its ranks run on", "[checkpoint]") {
  Harness h(2, 2, {}, [](std::uint64_t) { return true; });
  const auto start = h.orchestrator.start();
  const auto* prepare = only<CheckpointPrepare>(start);
  REQUIRE(prepare);
  for (int r = 0; r < 2; ++r) h.orchestrator.on_cut_report(report(1, r, CutState::unreached, 0, 1, {{1, 2}}));
  for (int r = 0; r < 2; ++r) h.orchestrator.on_cut_report(report(1, r, CutState::parked, 1, 2, {{1, 2}}));
  h.orchestrator.on_image_captured({1, 0, 0.01});
  const auto released = h.orchestrator.on_image_captured({1, 1, 0.01});
  REQUIRE(only<CheckpointRelease>(released));
  CHECK_FALSE(only<CheckpointRelease>(released)->run_on);
  CHECK(h.orchestrator.on_image_written(write_image(prepare->epoch_dir, 1, 0)).broadcast.empty());
  ImageWritten died;
  died.epoch = 1;
  died.logical_rank = 1;
  died.error = "the image writer (pid 42) ended before the image was complete (signal 9)";
  const auto failed = h.orchestrator.on_image_written(died);
  REQUIRE(only<CheckpointResume>(failed));
  CHECK_FALSE(only<CheckpointResume>(failed)->committed);
}

TEST_CASE("a background writer that failed fails the epoch after the release", "[checkpoint]") {
  Harness h(2);
  const auto start = h.orchestrator.start();
  const auto* prepare = only<CheckpointPrepare>(start);
  REQUIRE(prepare);
  for (int r = 0; r < 2; ++r) h.orchestrator.on_cut_report(report(1, r, CutState::unreached, 0, 1, {{1, 2}}));
  for (int r = 0; r < 2; ++r) h.orchestrator.on_cut_report(report(1, r, CutState::parked, 1, 2, {{1, 2}}));
  h.orchestrator.on_image_captured({1, 0, 0.01});
  REQUIRE(only<CheckpointRelease>(h.orchestrator.on_image_captured({1, 1, 0.01})));
  CHECK(h.orchestrator.on_image_written(write_image(prepare->epoch_dir, 1, 0)).broadcast.empty());
  ImageWritten died;
  died.epoch = 1;
  died.logical_rank = 1;
  died.error = "the image writer (pid 42) ended before the image was complete (signal 9)";
  const auto failed = h.orchestrator.on_image_written(died);
  REQUIRE(only<CheckpointResume>(failed));
  CHECK_FALSE(only<CheckpointResume>(failed)->committed);
  REQUIRE(failed.ended);
  CHECK(failed.ended->message ==
        "checkpoint epoch 1 failed on rank 1: the image writer (pid 42) ended before the image was complete "
        "(signal 9); no epoch is committed yet");
  CHECK_FALSE(fs::exists(h.dir.path / "1"));
}
