// Checkpoint epochs end to end over the real control plane: a Coordinator with checkpointing on,
// fake ranks (fake_rank/) as RankControlClients in this process, `yadokari checkpoint`'s client.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "runtime/control/checkpoint_client.hpp"
#include "runtime/control/coordinator.hpp"
#include "pmpi-layer/src/link/rank_client.hpp"
#include "protocol/credential.hpp"
#include "tests/cli/fake_rank/fake_checkpoint_rank.hpp"
#include "checkpoint/storage/epoch_store.hpp"

using namespace yadokari::control;
using namespace yadokari::protocol;
using namespace yadokari::link;
using yadokari::testing::FakeCheckpointRank;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr const char* kJob = "yk-ckpt-test";
constexpr const char* kSecret = "ckpt-secret";

struct Environment {
  Environment(const std::string& endpoint, const std::string& credential) {
    setenv("YADOKARI_CONTROL", endpoint.c_str(), 1);
    setenv("YADOKARI_JOB_ID", kJob, 1);
    setenv("YADOKARI_JOB_SECRET", credential.c_str(), 1);
  }
  ~Environment() {
    unsetenv("YADOKARI_CONTROL");
    unsetenv("YADOKARI_JOB_ID");
    unsetenv("YADOKARI_JOB_SECRET");
  }
};

struct Rank {
  std::unique_ptr<FakeCheckpointRank> fake;
  std::unique_ptr<RankControlClient> client;
};

struct Job {
  fs::path dir;
  std::vector<std::string> log;
  std::vector<EpochEnd> ends;
  std::unique_ptr<Coordinator> coordinator;
  std::vector<Rank> ranks;

  Job(int world, std::optional<CoordinatorConfig::Checkpointing> checkpoint, std::vector<int> failing = {},
      std::vector<int> silent = {}, std::vector<int> stuck = {}, std::vector<int> computing = {}) {
    static int count = 0;
    dir = fs::temp_directory_path() / ("yk-ckpt-" + std::to_string(getpid()) + "-" + std::to_string(count++));
    fs::remove_all(dir);
    fs::create_directories(dir);
    if (checkpoint) checkpoint->dir = dir;
    CoordinatorConfig config;
    config.job_id = kJob;
    config.secret = kSecret;
    config.app = "./app";
    config.flavour = "openmpi";
    config.world_size = world;
    config.checkpoint = checkpoint;
    config.log = [this](const std::string& line) { log.push_back(line); };
    config.on_epoch_end = [this](const EpochEnd& end) { ends.push_back(end); };
    config.first_report_timeout = 1s;
    config.cut_stall_timeout = 1s;
    coordinator = std::make_unique<Coordinator>(config);
    Environment env(coordinator->control_endpoint(), coordinator->credential());
    for (int r = 0; r < world; ++r) {
      FakeCheckpointRank::Options options;
      options.rank = r;
      options.world_size = world;
      options.job_id = kJob;
      options.fail_image = std::find(failing.begin(), failing.end(), r) != failing.end();
      options.silent = std::find(silent.begin(), silent.end(), r) != silent.end();
      options.stuck_inside = std::find(stuck.begin(), stuck.end(), r) != stuck.end();
      options.computing = std::find(computing.begin(), computing.end(), r) != computing.end();
      Rank rank;
      rank.fake = std::make_unique<FakeCheckpointRank>(options);
      RankIdentity id;
      id.logical_rank = r;
      id.world_size = world;
      id.flavour = "openmpi";
      rank.client = RankControlClient::start_from_env(
          id, [] { return RankStatus{}; }, rank.fake->listener());
      REQUIRE(rank.client);
      rank.fake->attach(rank.client.get());
      ranks.push_back(std::move(rank));
    }
    REQUIRE(serve_until([&] { return coordinator->registered_ranks().size() == static_cast<std::size_t>(world); }));
  }
  ~Job() {
    ranks.clear();  // clients first: they hold the fakes' listeners
    fs::remove_all(dir);
  }

  // The cap only turns a hang into a failure.
  bool serve_until(const std::function<bool()>& done) {
    for (int i = 0; i < 1200; ++i) {
      if (done()) return true;
      coordinator->poll(50ms);
    }
    return done();
  }

  // `yadokari checkpoint` from another thread while this one serves.
  CheckpointReply ask_cli() {
    std::atomic<bool> done{false};
    CheckpointReply reply;
    std::string error;
    std::thread cli([&] {
      try {
        reply = request_checkpoint(coordinator->status_endpoint(), kJob, coordinator->credential(), 60s);
      } catch (const StatusError& e) {
        error = e.what();
      }
      done = true;
    });
    serve_until([&] { return done.load(); });
    cli.join();
    INFO(error);
    CHECK(error.empty());
    return reply;
  }

  yadokari::storage::EpochStore store() const { return yadokari::storage::EpochStore(dir); }
};

CoordinatorConfig::Checkpointing checkpointing(unsigned keep = 2, double interval = 0) {
  CoordinatorConfig::Checkpointing c;
  c.keep = keep;
  c.interval_seconds = interval;
  return c;
}

}  // namespace

TEST_CASE("yadokari checkpoint commits an epoch the ranks wrote", "[checkpoint][control]") {
  Job job(3, checkpointing());
  const CheckpointReply reply = job.ask_cli();
  CHECK(reply.ok);
  CHECK(reply.epoch == 1);
  CHECK(reply.message == "epoch 1 committed");
  const auto choice = job.store().newest_good_epoch();  // every image verifies
  REQUIRE(choice.epoch);
  CHECK(*choice.epoch == 1);
  CHECK(choice.manifest->images.size() == 3);
  CHECK(choice.manifest->job_id == kJob);
  REQUIRE(job.serve_until([&] { return job.ranks[2].fake->committed() == 1; }));
  REQUIRE(job.ends.size() == 1);
  CHECK(job.ends[0].committed);
  CHECK(job.log.empty());
}

TEST_CASE("epochs keep coming and old ones are pruned", "[checkpoint][control]") {
  Job job(2, checkpointing(2));
  for (std::uint64_t epoch = 1; epoch <= 4; ++epoch) {
    const auto reply = job.ask_cli();
    CHECK(reply.ok);
    CHECK(reply.epoch == epoch);
  }
  CHECK(job.store().committed_epochs() == std::vector<std::uint64_t>{3, 4});
  CHECK(job.store().all_epochs() == std::vector<std::uint64_t>{3, 4});
}

TEST_CASE("the application's yadokari_checkpoint() starts an epoch", "[checkpoint][control]") {
  Job job(2, checkpointing());
  job.ranks[1].client->send(CheckpointAsk{1});
  REQUIRE(job.serve_until([&] { return !job.ends.empty(); }));
  CHECK(job.ends[0].committed);
  CHECK(job.store().committed_epochs() == std::vector<std::uint64_t>{1});
}

TEST_CASE("an interval starts epochs by itself", "[checkpoint][control]") {
  Job job(2, checkpointing(3, 0.05));
  REQUIRE(job.serve_until([&] { return job.ends.size() >= 2; }));
  CHECK(job.ends[0].epoch == 1);
  CHECK(job.ends[1].epoch == 2);
  CHECK(job.ends[1].committed);
}

TEST_CASE("a rank failing its image fails the epoch and the job goes on", "[checkpoint][control]") {
  Job job(2, checkpointing(), {1});
  const auto reply = job.ask_cli();
  CHECK_FALSE(reply.ok);
  CHECK(reply.message == "checkpoint epoch 1 failed on rank 1: fake image failure; no epoch is committed yet");
  CHECK(job.log == std::vector<std::string>{"yadokari: " + reply.message});
  CHECK(job.store().all_epochs().empty());
  REQUIRE(job.serve_until([&] { return job.ranks[0].fake->not_committed() == 1; }));
}

TEST_CASE("without a checkpoint directory the front end says checkpointing is off", "[checkpoint][control]") {
  Job job(1, std::nullopt);
  const auto reply = job.ask_cli();
  CHECK_FALSE(reply.ok);
  CHECK(reply.message == "checkpointing is off for this job (start it with --ckpt-dir)");
  job.ranks[0].client->send(CheckpointAsk{0});
  REQUIRE(job.serve_until([&] { return !job.log.empty(); }));
  CHECK(job.log[0] ==
        "yadokari: rank 0 asked for a checkpoint, but checkpointing is off for this job (start "
        "it with --ckpt-dir)");
}

TEST_CASE("a checkpoint request with the wrong secret is refused", "[checkpoint][control]") {
  Job job(1, checkpointing());
  std::atomic<bool> done{false};
  std::string error;
  std::thread cli([&] {
    try {
      const auto key = yadokari::protocol::parse_credential(job.coordinator->credential())->coordinator_key;
      request_checkpoint(job.coordinator->status_endpoint(), kJob, yadokari::protocol::make_credential("guess", key),
                         60s);
    } catch (const StatusError& e) {
      error = e.what();
    }
    done = true;
  });
  job.serve_until([&] { return done.load(); });
  cli.join();
  CHECK(error == "job yk-ckpt-test refused the checkpoint request: wrong job id or secret");
  CHECK(job.store().all_epochs().empty());
}

TEST_CASE("a rank that never answers the prepare makes the epoch be abandoned", "[checkpoint][control]") {
  Job job(2, checkpointing(), {}, {1});
  const auto reply = job.ask_cli();
  CHECK_FALSE(reply.ok);
  CHECK(reply.message ==
        "checkpoint epoch 1 abandoned: rank 1 did not answer within 1 s (it may have reached "
        "MPI_Finalize)");
  // Rank 0, which reported, is told to resume.
  REQUIRE(job.serve_until([&] { return job.ranks[0].fake->not_committed() == 1; }));
  CHECK(job.store().all_epochs().empty());
  CHECK_FALSE(job.coordinator->checkpoint_in_progress());
}

TEST_CASE("a cut that waits for a rank still running is kept open and that rank named once", "[checkpoint][control]") {
  Job job(3, checkpointing(), {}, {}, {}, {2});
  job.coordinator->request_checkpoint();
  const std::string line =
      "yadokari: checkpoint epoch 1 is waiting for rank 2, not at an MPI call since the epoch began (no rank moved "
      "for 1 s, round 1): rank 0 parked; rank 1 parked; rank 2 running (as of round 0)";
  REQUIRE(job.serve_until([&] { return std::find(job.log.begin(), job.log.end(), line) != job.log.end(); }));
  // Another stall period: the rank may just be computing, so the cut stays open, and the line is
  // not repeated.
  for (int i = 0; i < 30; ++i) job.coordinator->poll(50ms);
  CHECK(std::count(job.log.begin(), job.log.end(), line) == 1);
  CHECK(job.coordinator->checkpoint_in_progress());
  CHECK(job.ends.empty());
}

TEST_CASE("a cut that stalls with every rank waiting is abandoned after the stall timeout", "[checkpoint][control]") {
  Job job(2, checkpointing(), {}, {}, {1});
  const auto reply = job.ask_cli();
  CHECK_FALSE(reply.ok);
  CHECK(reply.message ==
        "checkpoint epoch 1 abandoned: the cut stalled (no rank moved for 1 s, round 1): rank 0 parked; rank 1 "
        "inside a collective on communicator 1");
  REQUIRE(job.serve_until([&] { return job.ranks[0].fake->not_committed() == 1; }));
  CHECK(job.store().all_epochs().empty());
  CHECK_FALSE(job.coordinator->checkpoint_in_progress());
}
