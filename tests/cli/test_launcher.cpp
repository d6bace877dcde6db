#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/launch/launcher.hpp"

using namespace yadokari::launch;
using Args = std::vector<std::string>;

namespace {

LaunchPlan sample_plan(MpiFlavour flavour) {
  LaunchPlan plan;
  plan.flavour = flavour;
  plan.launcher = flavour == MpiFlavour::openmpi ? "/usr/bin/mpirun.openmpi" : "/usr/bin/mpiexec.mpich";
  plan.ranks = 4;
  plan.forwarded_env = {"YADOKARI_CONTROL", "YADOKARI_JOB_ID"};
  plan.rank_only_env = {{"LD_PRELOAD", "/opt/y/lib/libyadokari.so:/other.so"}};
  plan.app_argv = {"/data/app", "--size", "10"};
  return plan;
}

}  // namespace

TEST_CASE("Open MPI command line as a normal user", "[launcher]") {
  CHECK(launcher_argv(sample_plan(MpiFlavour::openmpi)) == Args{"/usr/bin/mpirun.openmpi", "--oversubscribe", "-n", "4",
                                                                "-x", "LD_PRELOAD=/opt/y/lib/libyadokari.so:/other.so",
                                                                "-x", "YADOKARI_CONTROL", "-x", "YADOKARI_JOB_ID",
                                                                "/data/app", "--size", "10"});
}

TEST_CASE("Open MPI command line as root, with hosts and user arguments", "[launcher]") {
  LaunchPlan plan = sample_plan(MpiFlavour::openmpi);
  plan.running_as_root = true;
  plan.hosts = {{"node1", 2}, {"node2", 3}};
  plan.mpi_args = {"--mca", "btl", "self,vader"};
  CHECK(launcher_argv(plan) == Args{"/usr/bin/mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", "4",
                                    "--host", "node1:2,node2:3", "-x", "LD_PRELOAD=/opt/y/lib/libyadokari.so:/other.so",
                                    "-x", "YADOKARI_CONTROL", "-x", "YADOKARI_JOB_ID", "--mca", "btl", "self,vader",
                                    "/data/app", "--size", "10"});
}

TEST_CASE("MPICH command line", "[launcher]") {
  LaunchPlan plan = sample_plan(MpiFlavour::mpich);
  plan.running_as_root = true;  // Hydra does not care
  CHECK(launcher_argv(plan) == Args{"/usr/bin/mpiexec.mpich", "-n", "4", "-genv", "LD_PRELOAD",
                                    "/opt/y/lib/libyadokari.so:/other.so", "/data/app", "--size", "10"});
  plan.hosts = {{"node1", 2}, {"node2", 1}};
  plan.mpi_args = {"-launcher", "ssh"};
  plan.rank_only_env.clear();
  CHECK(launcher_argv(plan) == Args{"/usr/bin/mpiexec.mpich", "-n", "4", "-hosts", "node1:2,node2:1", "-launcher",
                                    "ssh", "/data/app", "--size", "10"});
}

TEST_CASE("launcher names", "[launcher]") {
  CHECK(launcher_name(MpiFlavour::openmpi) == "mpirun.openmpi");
  CHECK(launcher_name(MpiFlavour::mpich) == "mpiexec.mpich");
}

TEST_CASE("hosts option parsing", "[launcher]") {
  const auto hosts = parse_hosts("a:2,b,c:10");
  REQUIRE(hosts.size() == 3);
  CHECK(hosts[0].host == "a");
  CHECK(hosts[0].slots == 2);
  CHECK(hosts[1].host == "b");
  CHECK(hosts[1].slots == 1);
  CHECK(hosts[2].slots == 10);
  CHECK_THROWS_WITH(parse_hosts("a:0"), "bad --hosts entry 'a:0' (expected host or host:slots, slots at least 1)");
  CHECK_THROWS_WITH(parse_hosts("a:x"), "bad --hosts entry 'a:x' (expected host or host:slots, slots at least 1)");
  CHECK_THROWS_WITH(parse_hosts("a,,b"), "bad --hosts entry '' (expected host or host:slots, slots at least 1)");
  CHECK_THROWS_WITH(parse_hosts(":2"), "bad --hosts entry ':2' (expected host or host:slots, slots at least 1)");
  CHECK_THROWS_AS(parse_hosts("a:2x"), LaunchError);
}

TEST_CASE("mpi-args option splits like a shell", "[launcher]") {
  CHECK(split_shell_words("") == Args{});
  CHECK(split_shell_words("   ") == Args{});
  CHECK(split_shell_words("--mca btl  self,vader") == Args{"--mca", "btl", "self,vader"});
  CHECK(split_shell_words("-x 'A=b c' \"D=e f\"") == Args{"-x", "A=b c", "D=e f"});
  CHECK(split_shell_words("a\\ b") == Args{"a b"});
  CHECK(split_shell_words("'it'\\''s'") == Args{"it's"});
  CHECK(split_shell_words("\"say \\\"hi\\\" \\n\"") == Args{"say \"hi\" \\n"});
  CHECK(split_shell_words("''") == Args{""});
  CHECK_THROWS_WITH(split_shell_words("'open"), "--mpi-args has an unterminated ' quote");
  CHECK_THROWS_WITH(split_shell_words("\"open"), "--mpi-args has an unterminated \" quote");
  CHECK_THROWS_WITH(split_shell_words("end\\"), "--mpi-args ends with a lone backslash");
}

TEST_CASE("find_in_path finds executables only", "[launcher]") {
  const auto dir = std::filesystem::temp_directory_path() / "yadokari-test-find-in-path";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "a");
  std::filesystem::create_directories(dir / "b");
  std::ofstream(dir / "a" / "tool") << "#!/bin/sh\n";  // not executable
  std::ofstream(dir / "b" / "tool") << "#!/bin/sh\n";
  std::filesystem::permissions(dir / "b" / "tool", std::filesystem::perms::owner_all);
  const std::string path = (dir / "a").string() + ":" + (dir / "b").string();
  CHECK(find_in_path("tool", path) == dir / "b" / "tool");
  CHECK_FALSE(find_in_path("missing", path));
  CHECK_FALSE(find_in_path("tool", ""));  // "" is the current directory, which has no tool
  std::filesystem::remove_all(dir);
}
