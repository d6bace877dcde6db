// The pure parts of runtime/sim: naming, hostfiles, /etc/hosts, agent, launcher settings,
// state.json round trip, slurm.conf. (Everything that needs root and namespaces is in sim_*.sh.)
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "runtime/sim/agent_script.hpp"
#include "runtime/sim/cluster.hpp"
#include "runtime/sim/cpu_limit.hpp"
#include "runtime/sim/host_files.hpp"
#include "runtime/sim/launch_settings.hpp"
#include "runtime/sim/link_shape.hpp"
#include "runtime/sim/sim_error.hpp"
#include "runtime/sim/slurm_daemons.hpp"
#include "runtime/sim/state_file.hpp"

using namespace yadokari::sim;

namespace {
Cluster sample() {
  Cluster cluster = plan_cluster("abc", "/state/abc", 2, 3, "");
  for (auto* node : {&cluster.frontend, &cluster.nodes[0], &cluster.nodes[1]}) {
    node->pid = 100 + static_cast<int>(node->address.back());
    node->netns = "net:[4026530000]";
    node->alive = true;
  }
  return cluster;
}
}  // namespace

TEST_CASE("cluster names and node lookup", "[sim]") {
  CHECK_NOTHROW(check_cluster_name("sim2"));
  CHECK_THROWS_AS(check_cluster_name(""), SimError);
  CHECK_THROWS_AS(check_cluster_name("Upper"), SimError);
  CHECK_THROWS_AS(check_cluster_name("a-b"), SimError);
  CHECK_THROWS_AS(check_cluster_name("thirteenchars"), SimError);
  Cluster cluster = sample();
  CHECK(cluster.nodes[1].hostname == "ykabc-n2");
  CHECK(cluster.nodes[1].address == "10.213.0.2");
  CHECK(find_node(cluster, "n2") == &cluster.nodes[1]);
  CHECK(find_node(cluster, "ykabc-n2") == &cluster.nodes[1]);
  CHECK(find_node(cluster, "10.213.0.1") == &cluster.nodes[0]);
  CHECK(find_node(cluster, "fe") == &cluster.frontend);
  CHECK(find_node(cluster, "n3") == nullptr);
  CHECK(node_names(cluster) == "ykabc-n1, ykabc-n2");
}

TEST_CASE("hostfiles list live nodes and /etc/hosts names every node", "[sim]") {
  Cluster cluster = sample();
  CHECK(hostfile_openmpi_content(cluster) == "ykabc-n1 slots=3\nykabc-n2 slots=3\n");
  CHECK(hostfile_mpich_content(cluster) == "ykabc-n1:3\nykabc-n2:3\n");
  cluster.nodes[0].alive = false;
  CHECK(hostfile_mpich_content(cluster) == "ykabc-n2:3\n");
  const std::string hosts = hosts_content(cluster);
  CHECK(hosts.find("10.213.0.254\tykabc-fe\n") != std::string::npos);
  CHECK(hosts.find("10.213.0.1\tykabc-n1\n") != std::string::npos);
  CHECK(hosts.find("127.0.0.1\tlocalhost\n") != std::string::npos);
}

TEST_CASE("agent maps names to holders and refuses dead nodes", "[sim]") {
  Cluster cluster = sample();
  cluster.nodes[1].alive = false;
  const std::string agent = agent_script(cluster);
  CHECK(agent.find("n1|ykabc-n1|10.213.0.1)\n        pid=149 netns='net:[4026530000]' cgroup='' ;;") !=
        std::string::npos);
  CHECK(agent.find("n2|ykabc-n2|10.213.0.2)\n        unreachable ;;") != std::string::npos);
  CHECK(agent.find("nsenter -t \"$pid\" -n -u -i -m") != std::string::npos);
  // What the agent starts joins the node's CPU cgroup, when the cluster has limits.
  CHECK(agent.find("[ -z \"$cgroup\" ] || echo $$ > \"$cgroup/cgroup.procs\" || exit 255") != std::string::npos);
}

TEST_CASE("launch settings for both MPIs", "[sim]") {
  const Cluster cluster = sample();
  const auto ompi = launch_settings(cluster, yadokari::launch::MpiFlavour::openmpi, "/jobs/j1");
  CHECK(ompi.frontend_prefix ==
        std::vector<std::string>{"nsenter", "-t", "152", "-n", "-u", "-i", "-m", "--wd=.", "--"});
  CHECK(ompi.launcher_args ==
        std::vector<std::string>{"--hostfile", "/state/abc/hostfile.openmpi", "--bind-to", "none"});
  auto has = [&](const std::string& name, const std::string& value) {
    for (const auto& [n, v] : ompi.environment) {
      if (n == name) return v == value;
    }
    return false;
  };
  CHECK(has("OMPI_MCA_plm_rsh_agent", "/state/abc/agent"));
  CHECK(has("OMPI_MCA_plm_rsh_no_tree_spawn", "1"));
  CHECK(has("OMPI_MCA_oob_tcp_if_include", "10.213.0.0/24"));
  CHECK(has("OMPI_MCA_btl_tcp_if_include", "10.213.0.0/24"));
  CHECK(has("OMPI_MCA_orte_tmpdir_base", "/jobs/j1"));
  CHECK(has("OMPI_MCA_btl_vader_backing_directory", "/jobs/j1"));
  const auto mpich = launch_settings(cluster, yadokari::launch::MpiFlavour::mpich);
  CHECK(mpich.launcher_args == std::vector<std::string>{"-launcher", "ssh", "-launcher-exec", "/state/abc/agent", "-f",
                                                        "/state/abc/hostfile.mpich"});
  CHECK(mpich.environment.empty());
}

TEST_CASE("state.json round trip", "[sim]") {
  const Cluster cluster = sample();
  const Cluster back = cluster_from_json(nlohmann::json::parse(to_json(cluster).dump()));
  CHECK(back.name == "abc");
  CHECK(back.slots == 3);
  REQUIRE(back.nodes.size() == 2);
  CHECK(back.nodes[1].pid == cluster.nodes[1].pid);
  CHECK(back.nodes[1].netns == cluster.nodes[1].netns);
  CHECK(back.frontend.hostname == "ykabc-fe");
}

TEST_CASE("a node's own CPU limit survives state.json and overrides the cluster's", "[sim]") {
  Cluster cluster = sample();
  cluster.cpu_per_slot = 0.5;
  cluster.nodes[1].cpu_per_slot = 0.05;  // sim add --cpu-per-slot 0.05
  nlohmann::json state = to_json(cluster);
  const Cluster back = cluster_from_json(nlohmann::json::parse(state.dump()));
  CHECK(back.nodes[0].cpu_per_slot == 0.0);
  CHECK(back.nodes[1].cpu_per_slot == 0.05);
  CHECK(node_cpu_per_slot(back, back.nodes[0]) == 0.5);
  CHECK(node_cpu_per_slot(back, back.nodes[1]) == 0.05);
  // State files written before nodes had limits of their own.
  state["nodes"][1].erase("cpu_per_slot");
  CHECK(cluster_from_json(state).nodes[1].cpu_per_slot == 0.0);
}

TEST_CASE("sim up link shaping: a plain rate is a token bucket, anything else netem", "[sim]") {
  using Args = std::vector<std::string>;
  // 15 Mbit/s = 1.875 MB/s: 10 ms is 18750 B, below the 64 KiB floor.
  CHECK(link_qdisc_args("rate 15mbit") == Args{"tbf", "rate", "15mbit", "burst", "65536", "latency", "50ms"});
  // 1 Gbit/s: 10 ms is 1.25 MB.
  CHECK(link_qdisc_args(" rate  1gbit ") == Args{"tbf", "rate", "1gbit", "burst", "1250000", "latency", "50ms"});
  CHECK(link_qdisc_args("rate 15mbit delay 5ms") == Args{"netem", "rate", "15mbit", "delay", "5ms"});
  CHECK(link_qdisc_args("delay 5ms") == Args{"netem", "delay", "5ms"});
  CHECK(parse_tc_rate_bytes("2mbps") == 2000000);
  CHECK(parse_tc_rate_bytes("800kbit") == 100000);
  CHECK(parse_tc_rate_bytes("1.5Gbit") == 187500000);
  CHECK(parse_tc_rate_bytes("4096") == 4096);
  for (const char* bad : {"fast", "15 mbit", "mbit", "15furlongs", "0mbit", "1.2.3mbit", "-5mbit", "4bit"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_tc_rate_bytes(bad), SimError);
  }
  try {
    link_qdisc_args("rate lots");
    FAIL("no error");
  } catch (const SimError& e) {
    CHECK(std::string(e.what()) == "--link: 'lots' is not a rate (e.g. 15mbit, 1gbit, 2mbps)");
    CHECK(e.exit_code() == 2);
  }
}

TEST_CASE("slurm.conf: the frontend controls, every node with its address and slots as CPUs", "[sim]") {
  Cluster cluster = sample();
  cluster.nodes[1].alive = false;  // a killed node stays in the configuration (Slurm keeps it DOWN)
  cluster.slurm = true;
  const std::string conf = slurm_config(cluster);
  CHECK(conf.find("SlurmctldHost=ykabc-fe(10.213.0.254)\n") != std::string::npos);
  CHECK(conf.find("AuthInfo=socket=/state/abc/slurm/munge.socket\n") != std::string::npos);
  CHECK(conf.find("SlurmdSpoolDir=/state/abc/slurm/%n/spool\n") != std::string::npos);
  CHECK(conf.find("NodeName=ykabc-n1 NodeAddr=10.213.0.1 CPUs=3 Feature=ykabc State=UNKNOWN\n") != std::string::npos);
  CHECK(conf.find("NodeName=ykabc-n2 NodeAddr=10.213.0.2 CPUs=3 Feature=ykabc State=UNKNOWN\n") != std::string::npos);
  CHECK(conf.find("PartitionName=main Nodes=nodes ") != std::string::npos);
  CHECK(conf.find("cgroup") == std::string::npos);
  CHECK(cluster_from_json(to_json(cluster)).slurm);
}

TEST_CASE("a state.json number out of range is refused, not cast", "[sim]") {
  const Cluster cluster = sample();
  nlohmann::json state = to_json(cluster);
  state["slots"] = 1e300;  // get<int>() would cast it: undefined behaviour
  CHECK_THROWS_AS(cluster_from_json(state), std::invalid_argument);
  state = to_json(cluster);
  state["nodes"][0]["pid"] = 4294967298.0;
  CHECK_THROWS_AS(cluster_from_json(state), std::invalid_argument);
}
