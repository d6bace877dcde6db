// How the front end reaches the hosts of a --hosts/--hostfile job, reading a hostfile, and the
// nodes of a Slurm allocation.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/cli/hostfile.hpp"
#include "runtime/frontend/platform_hosts.hpp"
#include "runtime/frontend/platform_slurm.hpp"
#include "runtime/frontend/node_agents.hpp"

using namespace yadokari::frontend;
using yadokari::cli::read_hostfile;
namespace fs = std::filesystem;

namespace {

// Sets (or unsets, for nullptr) a variable for the scope of a test.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> saved;
  ScopedEnv(const char* n, const char* value) : name(n) {
    if (const char* old = std::getenv(n)) saved = old;
    if (value)
      setenv(n, value, 1);
    else
      unsetenv(n);
  }
  ~ScopedEnv() {
    if (saved)
      setenv(name.c_str(), saved->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

std::string hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

TEST_CASE("agents reach other hosts over ssh, YADOKARI_RSH or srun, this host directly", "[host-agents]") {
  ScopedEnv rsh("YADOKARI_RSH", nullptr);
  ScopedEnv slurm("SLURM_JOB_ID", nullptr);
  const auto ssh = host_agent_launch("node7");
  CHECK(ssh.remote);
  CHECK(ssh.node == "node7");
  CHECK(ssh.prefix == std::vector<std::string>{"ssh", "-o", "BatchMode=yes", "node7"});
  for (const std::string& local : {hostname(), std::string("localhost"), std::string("127.0.0.1")}) {
    const auto here = host_agent_launch(local);
    CHECK_FALSE(here.remote);
    CHECK(here.prefix.empty());
  }
  {
    ScopedEnv in_slurm("SLURM_JOB_ID", "1234");
    CHECK(host_agent_launch("node7").prefix ==
          std::vector<std::string>{"srun", "--nodes=1", "--ntasks=1", "--overlap", "--nodelist", "node7"});
  }
  ScopedEnv custom("YADOKARI_RSH", "/opt/agent -p 'port 22'");
  CHECK(host_agent_launch("node7").prefix == std::vector<std::string>{"/opt/agent", "-p", "port 22", "node7"});
}

TEST_CASE("a hostfile lists 'host', 'host slots=N' or 'host:N' per line", "[host-agents]") {
  const fs::path file = fs::temp_directory_path() / ("yk-hostfile-" + std::to_string(getpid()));
  std::ofstream(file) << "# the lab\nalpha slots=4\n\n  beta:2   # fast\ngamma\n";
  const auto hosts = read_hostfile(file.string());
  REQUIRE(hosts.size() == 3);
  CHECK(hosts[0].host == "alpha");
  CHECK(hosts[0].slots == 4);
  CHECK(hosts[1].host == "beta");
  CHECK(hosts[1].slots == 2);
  CHECK(hosts[2].host == "gamma");
  CHECK(hosts[2].slots == 1);
  std::ofstream(file) << "alpha slots=0\n";
  CHECK_THROWS_WITH(read_hostfile(file.string()),
                    file.string() + ":1: expected 'host', 'host slots=N' or 'host:N', not 'alpha slots=0'");
  std::ofstream(file) << "# nothing\n";
  CHECK_THROWS_WITH(read_hostfile(file.string()), "--hostfile " + file.string() + " lists no host");
  fs::remove(file);
  CHECK_THROWS_WITH(read_hostfile(file.string()), "cannot read --hostfile " + file.string());
}

TEST_CASE("the coordinator listens where the hosts reach it", "[host-agents]") {
  CHECK(coordinator_address({{"localhost", 2}}, "") == "127.0.0.1");
  CHECK(coordinator_address({{hostname(), 2}}, "") == "127.0.0.1");
  CHECK(coordinator_address({{"node7", 2}}, "10.1.2.3") == "10.1.2.3");
}

TEST_CASE("a Slurm allocation's per-node counts and hosts", "[host-agents][slurm]") {
  CHECK(parse_slurm_counts("2") == std::vector<int>{2});
  CHECK(parse_slurm_counts("2(x3),1") == std::vector<int>{2, 2, 2, 1});
  CHECK(parse_slurm_counts("4,1(x2),3") == std::vector<int>{4, 1, 1, 3});
  for (const char* bad : {"", "0", "2(x0)", "2(x3", "x", "2,", ",2", "2(3)", "-1", "2(x3),1a"})
    CHECK_THROWS_WITH(parse_slurm_counts(bad),
                      "cannot read Slurm's per-node count '" + std::string(bad) + "' (expected e.g. 2(x3),1)");
  const auto hosts = slurm_hosts({"n1", "n2", "n3"}, parse_slurm_counts("2(x2),1"));
  REQUIRE(hosts.size() == 3);
  CHECK(hosts[0].host == "n1");
  CHECK(hosts[0].slots == 2);
  CHECK(hosts[2].host == "n3");
  CHECK(hosts[2].slots == 1);
  CHECK_THROWS_WITH(slurm_hosts({"n1", "n2"}, {2}), "the Slurm allocation names 2 nodes but gives counts for 1");
}

TEST_CASE("a job is inside a Slurm allocation when SLURM_JOB_ID is set and not empty", "[host-agents][slurm]") {
  ScopedEnv job("SLURM_JOB_ID", "42");
  CHECK(in_slurm_allocation());
  ScopedEnv none("SLURM_JOB_ID", "");
  CHECK_FALSE(in_slurm_allocation());
}
