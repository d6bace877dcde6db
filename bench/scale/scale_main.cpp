// The scale harness (bench/scale/README.md): the real coordinator, checkpoint orchestrator,
// heartbeat tracker and restart planning of the front end, driven by fake ranks and fake node
// agents in a few worker processes, at sizes no real job here can reach.
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/control/coordinator.hpp"
#include "bench/scale/fake_nodes.hpp"
#include "bench/scale/front_end_meter.hpp"
#include "bench/scale/plan_only.hpp"
#include "runtime/frontend/restart_plan.hpp"
#include "protocol/secret.hpp"
#include "bench/scale/scale_options.hpp"
#include "scheduler/placement_error.hpp"

namespace scale = yadokari::bench::scale;
namespace control = yadokari::control;
using std::chrono::milliseconds;

namespace {

struct Worker {
  pid_t pid = -1;
  int commands = -1;  // we write
  int answers = -1;   // we read
  scale::NodeSlice slice;
};

void say(int fd, const std::string& line) {
  const std::string text = line + "\n";
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    throw std::runtime_error("a worker process is gone");
}

std::string hear(int fd) {
  std::string line;
  char c = 0;
  while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

struct MessageCounts {
  std::uint64_t sent = 0, received = 0, heartbeats = 0;  // at the front end, summed over the workers
};

// Asks every worker for its counts ("counts"; "quit" answers them too, and ends the worker).
MessageCounts message_counts(const std::vector<Worker>& workers, const std::string& verb) {
  MessageCounts total;
  for (const auto& worker : workers) say(worker.commands, verb);
  for (const auto& worker : workers) {
    unsigned long long s = 0, r = 0, h = 0;
    if (std::sscanf(hear(worker.answers).c_str(), "counts %llu %llu %llu", &s, &r, &h) != 3)
      throw std::runtime_error("a worker did not report its counts");
    total.sent += s, total.received += r, total.heartbeats += h;
  }
  return total;
}

// Each worker holds ~6,000 sockets at most: two descriptors each, under a 20,000 limit.
std::vector<Worker> start_workers(const scale::ScaleOptions& options) {
  const int nodes = options.nodes();
  const int sockets = options.ranks + nodes;
  const int count = std::min(nodes, options.workers > 0 ? options.workers : (sockets + 5999) / 6000);
  std::vector<Worker> workers;
  for (int w = 0; w < count; ++w) {
    int to_worker[2], from_worker[2];
    if (::pipe2(to_worker, O_CLOEXEC) != 0 || ::pipe2(from_worker, O_CLOEXEC) != 0)
      throw std::runtime_error("pipe failed");
    const scale::NodeSlice slice{nodes * w / count, nodes * (w + 1) / count};
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      // A worker must not outlive a front end that failed: it holds thousands of connections.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() == 1) ::_exit(1);
      ::close(to_worker[1]);
      ::close(from_worker[0]);
      for (const auto& earlier : workers) ::close(earlier.commands), ::close(earlier.answers);
      std::fflush(stdout);
      ::_exit(scale::run_fake_nodes(options, slice, to_worker[0], from_worker[1]));
    }
    ::close(to_worker[0]);
    ::close(from_worker[1]);
    workers.push_back({pid, to_worker[1], from_worker[0], slice});
  }
  return workers;
}

// Thousands of TCP connections end in this process.
void raise_descriptor_limit() {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  rlimit wanted{65536, 65536};
  if (setrlimit(RLIMIT_NOFILE, &wanted) != 0) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// Polls the coordinator until `done` or `limit` passes; false on timeout.
template <class Done>
bool serve_until(control::Coordinator& coordinator, std::chrono::seconds limit, Done done) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    coordinator.poll(milliseconds(5));
  }
  return true;
}

bool has_line(int fd) {
  pollfd item{fd, POLLIN, 0};
  return ::poll(&item, 1, 0) > 0;
}

struct PlanTiming {
  std::string policy;
  double seconds = 0;
  std::string outcome;  // "moved 16 ranks" or the PlacementError
};

std::vector<PlanTiming> plan_every_policy(const scale::ScaleOptions& options, control::Coordinator& coordinator,
                                          int lost_node) {
  std::vector<yadokari::frontend::ClusterNode> nodes;
  for (int n = 0; n < options.nodes(); ++n)
    nodes.push_back({scale::node_id(n), scale::node_hostname(n), options.ranks_per_node, n != lost_node, 0});
  std::vector<std::string> rank_hosts(static_cast<std::size_t>(options.ranks));
  for (const auto& rank : coordinator.registrations())
    rank_hosts[static_cast<std::size_t>(rank.logical_rank)] = rank.hostname;
  const control::TrafficCounts& counts = coordinator.last_committed_traffic();
  const yadokari::scheduler::TrafficMatrix traffic = yadokari::frontend::traffic_matrix(counts.rows);
  const control::ComputeTimes& measured = coordinator.last_committed_compute();
  const auto compute = yadokari::frontend::compute_on_current_hosts(measured.seconds, measured.hosts, rank_hosts);
  std::vector<PlanTiming> timings;
  for (const char* name : {"node", "balanced", "comm", "speed", "auto"}) {
    const auto policy = yadokari::scheduler::parse_policy(name);
    PlanTiming timing{name, 0, ""};
    const auto start = scale::read_meter();
    try {
      const auto plan =
          yadokari::frontend::plan_restart(policy, options.ranks, nodes, rank_hosts, 2.0, traffic, compute);
      timing.outcome = "moved " + std::to_string(plan.placement.moved.size()) + " ranks";
    } catch (const yadokari::scheduler::PlacementError& e) {
      timing.outcome = std::string("refused: ") + e.what();
    }
    timing.seconds = scale::seconds_between(start, scale::read_meter());
    timings.push_back(timing);
  }
  return timings;
}

int run(const scale::ScaleOptions& options) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // every line as it happens, also into a file
  raise_descriptor_limit();
  const bool own_dir = options.dir.empty();
  std::filesystem::path dir = options.dir;
  if (own_dir) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/yadokari-scale.XXXXXX";
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot make a directory from " + pattern);
    dir = pattern;
  }
  // Removed however the run ends (a failed run throws).
  struct RemoveOnExit {
    std::filesystem::path dir;
    ~RemoveOnExit() {
      std::error_code ignored;
      if (!dir.empty()) std::filesystem::remove_all(dir, ignored);
    }
  } remove_on_exit{own_dir ? dir : std::filesystem::path()};
  std::vector<Worker> workers = start_workers(options);
  const int nodes = options.nodes();
  std::printf("scale: %d ranks on %d nodes (%d per node), %zu worker processes, traffic %s, %d cut round(s)\n",
              options.ranks, nodes, options.ranks_per_node, workers.size(), scale::pattern_name(options.traffic),
              options.cut_rounds);
  std::fflush(stdout);

  control::CoordinatorConfig config;
  config.job_id = "scale-" + yadokari::protocol::random_hex(4);
  config.secret = yadokari::protocol::random_hex(16);
  config.app = "fake";
  config.flavour = "openmpi";
  config.world_size = options.ranks;
  config.checkpoint = control::CoordinatorConfig::Checkpointing{
      std::filesystem::absolute(dir), 1, 0, 0.0,
      options.node_dir ? std::filesystem::absolute(dir) / "node-disks" : std::filesystem::path()};
  config.membership = control::CoordinatorConfig::Membership{};
  config.membership->heartbeat.misses = options.heartbeat_misses;
  config.membership->heartbeat.interval = milliseconds(options.heartbeat_ms);
  for (int n = 0; n < nodes; ++n) config.membership->slots[scale::node_id(n)] = options.ranks_per_node;
  std::optional<control::EpochEnd> ended;
  config.on_epoch_end = [&](const control::EpochEnd& end) { ended = end; };
  // The fake cluster is slow to connect on 2 cores; a cut must not be abandoned meanwhile.
  config.first_report_timeout = milliseconds(600000);
  config.cut_stall_timeout = milliseconds(600000);
  int status = 0;
  {
    const auto before_start = scale::read_meter();
    control::Coordinator coordinator(config);
    for (const auto& worker : workers)
      say(worker.commands,
          "connect " + coordinator.control_endpoint() + " " + config.job_id + " " + coordinator.credential());
    std::size_t ready = 0;
    std::vector<bool> said_ready(workers.size(), false);
    // ~2 ms of front-end CPU per CURVE connection, and more wall time on a busy machine.
    const auto connect_limit = std::chrono::seconds(600 + (options.ranks + nodes) / 10);
    const bool connected = serve_until(coordinator, connect_limit, [&] {
      for (std::size_t w = 0; w < workers.size(); ++w)
        if (!said_ready[w] && has_line(workers[w].answers)) {
          if (hear(workers[w].answers) != "ready") throw std::runtime_error("a worker failed to connect");
          said_ready[w] = true;
          ++ready;
        }
      return ready == workers.size();
    });
    if (!connected)
      throw std::runtime_error("the fake ranks did not all register within " + std::to_string(connect_limit.count()) +
                               " s");
    const auto connected_at = scale::read_meter();
    std::printf("connected: every rank registered, every agent said hello in %.2f s (front-end CPU %.2f s)\n",
                scale::seconds_between(before_start, connected_at), scale::cpu_between(before_start, connected_at));
    std::printf("ranks through their agents' relays: %zu of %d (%s)\n", coordinator.relayed_ranks(), options.ranks,
                options.direct ? "--direct" : "relayed");
    // The front end's messages so far (registrations, hellos): what the rounds add is theirs.
    const MessageCounts at_connect = message_counts(workers, "counts");

    // Heartbeats alone: the front end's cost of membership, paid every second whether or not an
    // epoch runs. A round's wall time here is mostly the fake ranks' (thousands of them on the
    // front end's 2 cores), so its CPU holds that many seconds of heartbeats too: each round is
    // also given without them ("net"), the protocol's own cost.
    const auto idle_from = scale::read_meter();
    serve_until(coordinator, std::chrono::seconds(options.idle_seconds), [] { return false; });
    const auto idle_to = scale::read_meter();
    const double idle_rate = scale::cpu_between(idle_from, idle_to) / scale::seconds_between(idle_from, idle_to);
    std::printf("idle: front-end CPU %.3f s per second of heartbeats from %d agents (over %d s)\n", idle_rate, nodes,
                options.idle_seconds);

    double worst_latency = 0, worst_cpu = 0, total_cpu = 0, worst_net = 0, total_net = 0;
    for (int round = 1; round <= options.rounds; ++round) {
      ended.reset();
      const auto from = scale::read_meter();
      coordinator.request_checkpoint();
      if (!serve_until(coordinator, std::chrono::seconds(600), [&] { return ended.has_value(); }))
        throw std::runtime_error("round " + std::to_string(round) + " did not end within 600 s");
      const auto to = scale::read_meter();
      if (!ended->committed) throw std::runtime_error("round " + std::to_string(round) + ": " + ended->message);
      const double latency = scale::seconds_between(from, to), cpu = scale::cpu_between(from, to);
      worst_latency = std::max(worst_latency, latency);
      const double net = cpu - idle_rate * latency;
      worst_cpu = std::max(worst_cpu, cpu);
      total_cpu += cpu;
      worst_net = std::max(worst_net, net);
      total_net += net;
      std::printf(
          "round %d: epoch %llu committed, prepare->commit %.3f s, front-end CPU %.3f s (net of heartbeats %.3f s); "
          "%s\n",
          round, static_cast<unsigned long long>(ended->epoch), latency, cpu, net,
          scale::thread_cpu_between(from, to).c_str());
      std::fflush(stdout);
    }

    // A node lost before we silence one means the fake agents could not keep their pace (the
    // machine is too busy): say so, since detection and planning then measure something else.
    std::size_t false_losses = 0;
    std::set<std::string> lost_already;
    for (const auto& event : coordinator.take_lost_nodes()) {
      lost_already.insert(event.node);
      std::printf("unexpected: %s declared lost while its agent was sending heartbeats\n", event.node.c_str());
      ++false_losses;
    }

    double detection = 0;
    std::vector<PlanTiming> plans;
    if (options.lose_node) {
      const int lost = nodes / 2;
      const Worker* holder = nullptr;
      for (const auto& worker : workers)
        if (lost >= worker.slice.first && lost < worker.slice.end) holder = &worker;
      say(holder->commands, "lose " + std::to_string(lost));
      const auto silent_from = scale::read_meter();
      bool found = lost_already.count(scale::node_id(lost)) > 0;  // then no detection to measure
      if (!serve_until(coordinator, std::chrono::seconds(60), [&] {
            for (const auto& event : coordinator.take_lost_nodes())
              if (event.node == scale::node_id(lost)) found = true;
            return found;
          }))
        throw std::runtime_error("node " + scale::node_id(lost) + " was not declared lost within 60 s");
      if (lost_already.count(scale::node_id(lost)))
        std::printf("node loss: %s was lost already; no detection time\n", scale::node_id(lost).c_str());
      else {
        detection = scale::seconds_between(silent_from, scale::read_meter());
        std::printf("node loss: %s declared lost %.2f s after its agent stopped sending heartbeats\n",
                    scale::node_id(lost).c_str(), detection);
      }
      plans = plan_every_policy(options, coordinator, lost);
      for (const auto& plan : plans)
        std::printf("plan after the loss, policy %-8s %.4f s (%s)\n", plan.policy.c_str(), plan.seconds,
                    plan.outcome.c_str());
    }

    // Messages of the checkpoint protocol at the front end per epoch: what the fake ranks (or their
    // agents' relays) sent and received since every rank was connected.
    const MessageCounts at_end = message_counts(workers, "quit");
    const double in_per_round = static_cast<double>(at_end.sent - at_connect.sent) / options.rounds;
    const double out_per_round = static_cast<double>(at_end.received - at_connect.received) / options.rounds;
    std::printf("messages per checkpoint at the front end: %.0f in, %.0f out\n", in_per_round, out_per_round);
    std::printf("front end peak memory: %.1f MiB\n", scale::peak_rss_mib());
    std::printf(
        "RESULT ranks=%d nodes=%d path=%s traffic=%s cut_rounds=%d latency_s=%.3f cpu_per_round_s=%.3f "
        "worst_cpu_s=%.3f net_cpu_per_round_s=%.3f worst_net_cpu_s=%.3f idle_cpu_per_s=%.3f peak_rss_mib=%.1f "
        "msgs_in=%.0f msgs_out=%.0f detect_s=%.2f false_losses=%zu",
        options.ranks, nodes, options.direct ? "direct" : "relayed", scale::pattern_name(options.traffic),
        options.cut_rounds, worst_latency, total_cpu / options.rounds, worst_cpu, total_net / options.rounds, worst_net,
        idle_rate, scale::peak_rss_mib(), in_per_round, out_per_round, detection, false_losses);
    for (const auto& plan : plans) std::printf(" plan_%s_s=%.4f", plan.policy.c_str(), plan.seconds);
    std::printf("\n");
  }
  for (const auto& worker : workers) {
    int worker_status = 0;
    ::waitpid(worker.pid, &worker_status, 0);
    if (!WIFEXITED(worker_status) || WEXITSTATUS(worker_status) != 0) status = 1;
    ::close(worker.commands);
    ::close(worker.answers);
  }
  if (status != 0) std::fprintf(stderr, "scale harness: a worker process failed\n");
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  scale::ScaleOptions options;
  try {
    options = scale::parse_scale_options(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "scale harness: %s\n", e.what());
    return 2;
  }
  try {
    return options.plan_only ? scale::run_plan_only(options) : run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scale harness: %s\n", e.what());
    return 1;
  }
}
