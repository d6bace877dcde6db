// Slurm's view in `yadokari status` (cli/slurm_view.hpp): reading scontrol's one-line records,
// the table and JSON, and a clear reason when Slurm cannot be asked; the bounded runner behind it
// and the bounded scontrol behind it (launch/scontrol.hpp, launch/bounded_command.hpp).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "runtime/cli/slurm_view.hpp"
#include "runtime/launch/bounded_command.hpp"
#include "runtime/launch/scontrol.hpp"

using namespace yadokari::cli;
using yadokari::launch::run_bounded;
namespace fs = std::filesystem;

namespace {

// Lines as Slurm 22.05's `scontrol show job -o` / `show node -o` print them (shortened).
const char* kJobLine =
    "JobId=7 JobName=job.sh UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901754 Nice=0 "
    "Account=(null) QOS=(null) JobState=RUNNING Reason=None Dependency=(null) Requeue=1 Restarts=0 "
    "BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:09 TimeLimit=UNLIMITED NodeList=ykt-n[1-3] "
    "BatchHost=ykt-n1 NumNodes=3 NumCPUs=6 Command=/tmp/w/job.sh WorkDir=/tmp/w\n";
const char* kNodeLines =
    "NodeName=ykt-n1 Arch=x86_64 CoresPerSocket=1 CPUAlloc=2 CPUEfctv=2 CPUTot=2 CPULoad=1.50 "
    "AvailableFeatures=ykt ActiveFeatures=ykt Gres=(null) NodeAddr=10.77.0.11 NodeHostName=ykt-n1 "
    "State=ALLOCATED ThreadsPerCore=1 Partitions=main\n"
    "NodeName=ykt-n2 Arch=x86_64 CoresPerSocket=1 CPUAlloc=2 CPUTot=2 State=DOWN+NOT_RESPONDING "
    "Partitions=main Reason=Not responding [slurm@2026-11-26T13:40:00]\n"
    "NodeName=ykt-n3 CPUAlloc=2 CPUTot=2 State=MIXED Partitions=main\n";

// A directory with a fake `scontrol` first in PATH for as long as it lives.
struct FakeScontrol {
  fs::path dir = fs::temp_directory_path() / ("yadokari-test-scontrol-" + std::to_string(getpid()));
  std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  explicit FakeScontrol(const std::string& script) {
    fs::create_directories(dir);
    std::ofstream(dir / "scontrol") << "#!/bin/sh\n" << script << "\n";
    chmod((dir / "scontrol").c_str(), 0755);
    setenv("PATH", (dir.string() + ":" + saved_path).c_str(), 1);
  }
  ~FakeScontrol() {
    setenv("PATH", saved_path.c_str(), 1);
    fs::remove_all(dir);
  }
};

// SLURM_CONF set to `value` for as long as it lives.
struct SlurmConf {
  std::optional<std::string> saved;
  explicit SlurmConf(const std::string& value) {
    if (const char* old = std::getenv("SLURM_CONF")) saved = old;
    setenv("SLURM_CONF", value.c_str(), 1);
  }
  ~SlurmConf() {
    if (saved)
      setenv("SLURM_CONF", saved->c_str(), 1);
    else
      unsetenv("SLURM_CONF");
  }
};

}  // namespace

TEST_CASE("scontrol_field reads one key of a one-line record", "[slurm-view]") {
  CHECK(scontrol_field(kJobLine, "JobId") == "7");
  CHECK(scontrol_field(kJobLine, "JobState") == "RUNNING");
  CHECK(scontrol_field(kJobLine, "NodeList") == "ykt-n[1-3]");
  CHECK(scontrol_field(kJobLine, "Command") == "/tmp/w/job.sh");
  // A key is a whole word: "Id" is not the end of "JobId" or "UserId".
  CHECK(scontrol_field(kJobLine, "Id").empty());
  CHECK(scontrol_field(kJobLine, "Missing").empty());
  CHECK(scontrol_field("Reason=Not responding [x]", "Reason") == "Not");
}

TEST_CASE("the job's state and allocation come from scontrol show job", "[slurm-view]") {
  SlurmView view;
  view.job_id = "7";
  read_slurm_job(kJobLine, view);
  CHECK(view.job_state == "RUNNING");
  CHECK(view.node_list == "ykt-n[1-3]");
  SlurmView other;
  other.job_id = "8";
  CHECK_THROWS_WITH(read_slurm_job(kJobLine, other), Catch::Contains("scontrol did not describe job 8"));
  other.job_id = "7";
  CHECK_THROWS_WITH(read_slurm_job("JobId=7 Name=x\n", other), "scontrol gave no JobState for job 7");
}

TEST_CASE("every node of the allocation with its Slurm state", "[slurm-view]") {
  const auto nodes = read_slurm_nodes(kNodeLines);
  REQUIRE(nodes.size() == 3);
  CHECK(nodes[0].node == "ykt-n1");
  CHECK(nodes[0].state == "ALLOCATED");
  CHECK(nodes[1].node == "ykt-n2");
  CHECK(nodes[1].state == "DOWN+NOT_RESPONDING");
  CHECK(nodes[2].state == "MIXED");
  CHECK(read_slurm_nodes("\n").empty());
  CHECK_THROWS_WITH(read_slurm_nodes("No nodes in the system\n"),
                    "cannot read scontrol's node line 'No nodes in the system'");
}

TEST_CASE("a node's reason is the rest of its line, and a DRAIN state is a drain", "[slurm-view]") {
  const auto nodes = read_slurm_nodes(kNodeLines);
  CHECK(nodes[0].reason.empty());
  CHECK(nodes[1].reason == "Not responding [slurm@2026-11-26T13:40:00]");
  CHECK_FALSE(nodes[1].draining());
  const auto drained = read_slurm_nodes(
      "NodeName=ykt-n2 CPUTot=2 State=ALLOCATED+DRAIN Partitions=main Reason=maint work [root@2026-12-06T18:40:46]\n"
      "NodeName=ykt-n3 State=IDLE+DRAIN Reason=x [root@2026-12-06T18:41:00]\n");
  CHECK(drained[0].draining());
  CHECK(drained[0].reason == "maint work [root@2026-12-06T18:40:46]");
  CHECK(drained[1].draining());
}

TEST_CASE("status shows the Slurm job, its nodes and their states", "[slurm-view]") {
  SlurmView view{"7", "RUNNING", "ykt-n[1-3]", "ykt-n[1-3]", read_slurm_nodes(kNodeLines), ""};
  CHECK(slurm_view_table(view) ==
        "slurm job 7  RUNNING  nodes ykt-n[1-3]\n"
        "slurm node  state\n"
        "ykt-n1      ALLOCATED\n"
        "ykt-n2      DOWN+NOT_RESPONDING\n"
        "ykt-n3      MIXED\n");
  // Slurm drops a node that went DOWN from the job's list; the table names both lists then.
  SlurmView shrunk = view;
  shrunk.node_list = "ykt-n[1,3]";
  CHECK(slurm_view_table(shrunk).substr(0, 64) == "slurm job 7  RUNNING  nodes ykt-n[1,3]  (started on ykt-n[1-3])\n");
  const auto json = slurm_view_json(view);
  CHECK(json["job_id"] == "7");
  CHECK(json["state"] == "RUNNING");
  CHECK(json["nodes"][1]["node"] == "ykt-n2");
  CHECK(json["nodes"][1]["state"] == "DOWN+NOT_RESPONDING");
  SlurmView lost{"7", "", "", "", {}, "scontrol show job -o 7 did not answer within 5 s"};
  CHECK(slurm_view_table(lost) ==
        "slurm job 7: Slurm not reachable: scontrol show job -o 7 did not answer within 5 s\n");
  CHECK(slurm_view_json(lost)["unreachable"] == "scontrol show job -o 7 did not answer within 5 s");
}

TEST_CASE("ask_slurm runs scontrol for the job, then the nodes it started with", "[slurm-view]") {
  // The fake answers like scontrol would after a node went DOWN (the job's list shrank to n[1,3]),
  // and only to the queries expected.
  std::string job_line = kJobLine;
  job_line.replace(job_line.find("NodeList=ykt-n[1-3]"), 19, "NodeList=ykt-n[1,3]");
  FakeScontrol fake(std::string("case \"$*\" in\n") + "'show job -o 7') printf '%s' '" + job_line + "' ;;\n" +
                    "'show node -o ykt-n[1-3]') printf '%s' '" + kNodeLines + "' ;;\n" +
                    "*) echo \"unexpected: $*\" >&2; exit 1 ;;\nesac");
  const SlurmView view = ask_slurm("7", "ykt-n[1-3]", std::chrono::milliseconds(30000));
  CHECK(view.unreachable.empty());
  CHECK(view.job_state == "RUNNING");
  CHECK(view.node_list == "ykt-n[1,3]");
  REQUIRE(view.nodes.size() == 3);
  CHECK(view.nodes[1].state == "DOWN+NOT_RESPONDING");
  // Without the list it started with (an older record): the job's nodes now.
  CHECK(ask_slurm("7", "", std::chrono::milliseconds(30000)).unreachable ==
        "scontrol show node -o ykt-n[1,3] failed: unexpected: show node -o ykt-n[1,3]");
}

TEST_CASE("Slurm not reachable: the reason in one line", "[slurm-view]") {
  {
    FakeScontrol fake("echo 'slurm_load_jobs error: Unable to contact slurm controller (connect failure)' >&2; exit 1");
    CHECK(slurm_view_table(ask_slurm("7", "ykt-n[1-3]", std::chrono::milliseconds(30000))) ==
          "slurm job 7: Slurm not reachable: scontrol show job -o 7 failed: slurm_load_jobs error: Unable to "
          "contact slurm controller (connect failure)\n");
  }
  {
    // A controller that never answers: the query is ended at the limit (1 s here, the fake would take 10 min).
    FakeScontrol fake("exec sleep 600");
    CHECK(ask_slurm("7", "ykt-n[1-3]", std::chrono::milliseconds(1000)).unreachable ==
          "scontrol show job -o 7 did not answer within 1 s");
  }
  {
    const std::string saved = std::getenv("PATH");
    setenv("PATH", "/nonexistent", 1);
    CHECK(ask_slurm("7", "ykt-n[1-3]", std::chrono::milliseconds(30000)).unreachable ==
          "scontrol is not installed or not in PATH");
    setenv("PATH", saved.c_str(), 1);
  }
}

TEST_CASE("a SLURM_CONF that cannot be read is the reason, before scontrol waits a minute for it", "[slurm-view]") {
  // scontrol itself retries a missing configuration file for 60 s; the fake stands for that and
  // leaves a mark when it is run at all.
  const fs::path ran = fs::temp_directory_path() / ("yadokari-test-scontrol-ran-" + std::to_string(getpid()));
  {
    FakeScontrol fake("touch '" + ran.string() + "'; exec sleep 600");
    {
      SlurmConf conf("/nonexistent/slurm.conf");
      CHECK(slurm_view_table(ask_slurm("7", "ykt-n[1-3]", std::chrono::milliseconds(30000))) ==
            "slurm job 7: Slurm not reachable: SLURM_CONF=/nonexistent/slurm.conf cannot be read: No such file or "
            "directory\n");
      CHECK_THROWS_WITH(
          yadokari::launch::run_scontrol({"show", "hostnames", "ykt-n[1-3]"}, std::chrono::milliseconds(30000)),
          "SLURM_CONF=/nonexistent/slurm.conf cannot be read: No such file or directory");
    }
    SlurmConf conf(fake.dir.string());
    CHECK(ask_slurm("7", "", std::chrono::milliseconds(30000)).unreachable ==
          "SLURM_CONF=" + fake.dir.string() + " cannot be read: not a regular file");
  }
  CHECK_FALSE(fs::exists(ran));
  // A readable file: scontrol is asked, and a query that hangs while it complains is ended at the
  // limit with its complaint.
  FakeScontrol complaining(
      "echo 'scontrol: error: s_p_parse_file: cannot stat file x, retrying in 1sec up to 60sec' >&2; exec sleep 600");
  SlurmConf conf((complaining.dir / "scontrol").string());
  CHECK(ask_slurm("7", "", std::chrono::milliseconds(1000)).unreachable ==
        "scontrol show job -o 7 did not answer within 1 s: scontrol: error: s_p_parse_file: cannot stat file x, "
        "retrying in 1sec up to 60sec");
}

TEST_CASE("run_bounded collects stdout, stderr and the exit code", "[slurm-view]") {
  const auto done = run_bounded({"sh", "-c", "echo out; echo err >&2; exit 3"}, std::chrono::milliseconds(30000));
  CHECK(done.started);
  CHECK_FALSE(done.timed_out);
  CHECK(done.exit_code == 3);
  CHECK(done.out == "out\n");
  CHECK(done.err == "err\n");
  // A child that closes its output but keeps running is still ended at the limit.
  const auto hung = run_bounded({"sh", "-c", "exec >&- 2>&-; exec sleep 600"}, std::chrono::milliseconds(500));
  CHECK(hung.timed_out);
  CHECK(hung.exit_code == -1);
}
