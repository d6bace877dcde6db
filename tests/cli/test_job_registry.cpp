#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/control/job_registry.hpp"

using namespace yadokari::control;
namespace fs = std::filesystem;

namespace {

// A fresh state directory per test, named by YADOKARI_STATE_DIR as users would.
struct TempStateDir {
  fs::path dir = fs::temp_directory_path() / ("yadokari-test-registry-" + std::to_string(getpid()));
  TempStateDir() {
    fs::remove_all(dir);
    setenv("YADOKARI_STATE_DIR", dir.c_str(), 1);
  }
  ~TempStateDir() {
    unsetenv("YADOKARI_STATE_DIR");
    fs::remove_all(dir);
  }
};

JobRecord sample(const std::string& id, std::int64_t pid) {
  return JobRecord{id, pid, "tcp://127.0.0.1:5555", "secret", "./app", "openmpi", 4, "2024-01-01T00:00:00Z"};
}

// The pid of a process that certainly no longer exists.
pid_t dead_pid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

}  // namespace

TEST_CASE("the state directory comes from YADOKARI_STATE_DIR and is private", "[registry]") {
  TempStateDir temp;
  CHECK(state_dir() == temp.dir);
  struct stat st {};
  REQUIRE(stat(temp.dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
}

TEST_CASE("a published job is listed, private, and removed with its publisher", "[registry]") {
  TempStateDir temp;
  fs::path file;
  {
    PublishedJob published(state_dir(), sample("yk-abc", getpid()));
    file = published.file();
    CHECK(file == temp.dir / "jobs" / "yk-abc.json");
    struct stat st {};
    REQUIRE(stat(file.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);

    const auto jobs = running_jobs(state_dir());
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].job_id == "yk-abc");
    CHECK(jobs[0].pid == getpid());
    CHECK(jobs[0].status_endpoint == "tcp://127.0.0.1:5555");
    CHECK(jobs[0].credential == "secret");
    CHECK(jobs[0].app == "./app");
    CHECK(jobs[0].flavour == "openmpi");
    CHECK(jobs[0].ranks == 4);
    CHECK(jobs[0].started == "2024-01-01T00:00:00Z");
  }
  CHECK_FALSE(fs::exists(file));
  CHECK(running_jobs(state_dir()).empty());
}

TEST_CASE("records of dead front ends are ignored and cleaned up", "[registry]") {
  TempStateDir temp;
  PublishedJob alive(state_dir(), sample("yk-alive", getpid()));
  // What a front end killed with SIGKILL leaves behind.
  const fs::path stale = temp.dir / "jobs" / "yk-stale.json";
  std::ofstream(stale) << R"({"job_id": "yk-stale", "pid": )" << dead_pid()
                       << R"(, "status_endpoint": "tcp://127.0.0.1:1", "credential": "x", "app": "a",
                              "flavour": "mpich", "ranks": 2, "started": "2024-01-01T00:00:00Z"})";
  std::ofstream(temp.dir / "jobs" / "garbage.json") << "{ not json";

  const auto jobs = running_jobs(state_dir());
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].job_id == "yk-alive");
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(temp.dir / "jobs" / "garbage.json"));  // unreadable files are left alone
}

TEST_CASE("a front end that publishes its job removes the records of dead ones", "[registry]") {
  TempStateDir temp;
  // What a front end killed with SIGKILL leaves behind; `yadokari restart` then publishes its own.
  fs::create_directories(temp.dir / "jobs");
  const fs::path stale = temp.dir / "jobs" / "yk-killed.json";
  std::ofstream(stale) << R"({"job_id": "yk-killed", "pid": )" << dead_pid()
                       << R"(, "status_endpoint": "tcp://127.0.0.1:1", "credential": "x", "app": "a",
                              "flavour": "mpich", "ranks": 2, "started": "2024-01-01T00:00:00Z"})";
  const PublishedJob restarted(state_dir(), sample("yk-restarted", getpid()));
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(restarted.file()));
}

TEST_CASE("a record whose numbers fit no field is skipped, not converted (tests/fuzz/)", "[registry]") {
  TempStateDir temp;
  PublishedJob alive(state_dir(), sample("yk-alive", getpid()));
  // 1e300 into an int64 pid was undefined behaviour; 2^32 + 2 ranks would have wrapped to 2.
  std::ofstream(temp.dir / "jobs" / "yk-float.json")
      << R"({"job_id": "yk-float", "pid": 1e300, "status_endpoint": "tcp://127.0.0.1:1", "credential": "x",
             "app": "a", "flavour": "mpich", "ranks": 2, "started": "2024-01-01T00:00:00Z"})";
  std::ofstream(temp.dir / "jobs" / "yk-ranks.json")
      << R"({"job_id": "yk-ranks", "pid": 1, "status_endpoint": "tcp://127.0.0.1:1", "credential": "x",
             "app": "a", "flavour": "mpich", "ranks": 4294967298, "started": "2024-01-01T00:00:00Z"})";
  const auto jobs = running_jobs(state_dir());
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].job_id == "yk-alive");
  CHECK(fs::exists(temp.dir / "jobs" / "yk-float.json"));  // unreadable files are left alone
}

TEST_CASE("job ids are safe file names", "[registry]") {
  CHECK(is_valid_job_id("yk-0123abcd"));
  CHECK(is_valid_job_id("my_job.2"));
  CHECK_FALSE(is_valid_job_id(""));
  CHECK_FALSE(is_valid_job_id("../x"));
  CHECK_FALSE(is_valid_job_id(".hidden"));
  CHECK_FALSE(is_valid_job_id("a/b"));
  TempStateDir temp;
  CHECK_THROWS_AS(PublishedJob(state_dir(), sample("../escape", getpid())), RegistryError);
}

TEST_CASE("a state directory owned by someone else is refused", "[registry]") {
  if (geteuid() != 0) return;  // needs root to create a directory owned by another user
  TempStateDir temp;
  fs::create_directories(temp.dir);
  REQUIRE(chown(temp.dir.c_str(), 65534, 65534) == 0);
  CHECK_THROWS_AS(state_dir(), RegistryError);
}
