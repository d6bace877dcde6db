// `yadokari run --ckpt-dir D` on a directory an earlier run left epochs in (frontend/previous_run.hpp):
// another run's epochs are refused and left alone, --fresh moves them aside.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/frontend/frontend_error.hpp"
#include "runtime/frontend/job_file.hpp"
#include "runtime/frontend/previous_run.hpp"

namespace fs = std::filesystem;
using namespace yadokari::frontend;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string name = (fs::temp_directory_path() / "yk-previous-run.XXXXXX").string();
    path = mkdtemp(name.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

JobFile job(const std::string& job_id, std::vector<std::string> args, int ranks = 2) {
  return JobFile{"/bin/app", std::move(args), "openmpi", ranks, job_id, "", ""};
}

// An epoch directory; committed when it has a MANIFEST (all these checks look at).
void make_epoch(const fs::path& dir, int epoch, bool committed) {
  fs::create_directories(dir / std::to_string(epoch));
  if (committed) std::ofstream(dir / std::to_string(epoch) / "MANIFEST") << "{}";
}

}  // namespace

TEST_CASE("a directory without epochs is simply used", "[previous-run]") {
  TempDir d;
  for (bool fresh : {false, true}) {
    const PreviousRun previous = look_at_previous_run(d.path, "ckpt", job("yk-new", {"1"}), "/bin/app", fresh);
    CHECK_FALSE(previous.continue_from);
    CHECK_FALSE(previous.moved_aside);
    CHECK(previous.lines.empty());
  }
}

TEST_CASE("job.json without a committed epoch: nothing to continue, nothing to protect", "[previous-run]") {
  TempDir d;
  write_job_file(d.path, job("yk-old", {"other"}));
  make_epoch(d.path, 1, false);
  const PreviousRun previous = look_at_previous_run(d.path, "ckpt", job("yk-new", {"1"}), "/bin/app", false);
  CHECK_FALSE(previous.continue_from);
  CHECK(previous.lines.empty());
}

TEST_CASE("committed epochs of another run are refused with what differs, and left alone", "[previous-run]") {
  TempDir d;
  write_job_file(d.path, job("yk-old", {"400", "250"}));
  make_epoch(d.path, 2, true);
  make_epoch(d.path, 3, true);
  const std::string hint =
      "; give the same program, arguments and -n to continue it, --fresh to start over in it, or another --ckpt-dir";
  CHECK_THROWS_WITH(look_at_previous_run(d.path, "ckpt", job("yk-new", {"400", "300"}), "/bin/app", false),
                    "ckpt holds the checkpoints of another run (its arguments are '400 250', not '400 300')" + hint);
  CHECK_THROWS_WITH(look_at_previous_run(d.path, "ckpt", job("yk-new", {"400", "250"}, 4), "/bin/app", false),
                    "ckpt holds the checkpoints of another run (it has 2 ranks, not 4)" + hint);
  JobFile other = job("yk-new", {"400", "250"});
  other.app = "/bin/other";
  CHECK_THROWS_WITH(look_at_previous_run(d.path, "ckpt", other, "/bin/other", false),
                    "ckpt holds the checkpoints of another run (its program is /bin/app, not /bin/other)" + hint);
  other = job("yk-new", {"400", "250"});
  other.flavour = "mpich";
  CHECK_THROWS_WITH(look_at_previous_run(d.path, "ckpt", other, "/bin/app", false),
                    "ckpt holds the checkpoints of another run (its MPI is openmpi, not mpich)" + hint);
  CHECK(fs::exists(d.path / "2" / "MANIFEST"));
  CHECK(fs::exists(d.path / "3" / "MANIFEST"));
  CHECK(read_job_file(d.path).job_id == "yk-old");
}

TEST_CASE("committed epochs without job.json are refused", "[previous-run]") {
  TempDir d;
  make_epoch(d.path, 1, true);
  CHECK_THROWS_WITH(look_at_previous_run(d.path, "ckpt", job("yk-new", {}), "/bin/app", false),
                    "ckpt holds committed epochs (1) but no job.json; --fresh starts over in it, or give another "
                    "--ckpt-dir");
}

TEST_CASE("run with --fresh moves the earlier run aside until the new run commits an epoch", "[previous-run]") {
  TempDir d;
  write_job_file(d.path, job("yk-old", {"x"}));
  make_epoch(d.path, 2, true);
  make_epoch(d.path, 3, true);
  make_epoch(d.path, 4, false);
  const PreviousRun previous = look_at_previous_run(d.path, "ckpt", job("yk-new", {"y"}), "/bin/app", true);
  REQUIRE(previous.moved_aside);
  CHECK(*previous.moved_aside == d.path / "previous-yk-new");
  CHECK(previous.lines ==
        std::vector<std::string>{"--fresh: starting over in ckpt; the earlier run's committed epochs 2, 3 moved to "
                                 "ckpt/previous-yk-new, deleted once this run commits an epoch"});
  // D holds no epoch and no job.json any more; the earlier run is whole, and restartable, aside.
  for (const char* name : {"2", "3", "4", "job.json"}) CHECK_FALSE(fs::exists(d.path / name));
  CHECK(read_job_file(*previous.moved_aside).job_id == "yk-old");
  CHECK(fs::exists(*previous.moved_aside / "3" / "MANIFEST"));
  CHECK(fs::exists(*previous.moved_aside / "4"));
  remove_previous_run(*previous.moved_aside, 1);
  CHECK_FALSE(fs::exists(*previous.moved_aside));
}
